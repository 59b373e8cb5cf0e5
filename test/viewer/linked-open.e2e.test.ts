/**
 * A link to a session opens it while the session list is still being read: listing sessions the
 * catalog does not know reads them whole, seconds for a large one, and the page must not wait.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { basename, dirname } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { createLocalSource } from "../../src/viewer/local-source.js";
import { type RunningViewer, startViewer } from "../../src/viewer/serve.js";
import type { ViewerSessionSummary, ViewerSource } from "../../src/viewer/source.js";
import { type Browser, launchBrowser, waitReady } from "./support/browser.js";
import { hook, waitForContext } from "./support/page-helpers.js";
import { makeViewerRoots, type ViewerRoots } from "./support/sessions.js";

describe("a link to a session opens it before the session list is read", () => {
  let roots: ViewerRoots;
  let viewer: RunningViewer;
  let browser: Browser;
  let page: Page;
  let releaseList: () => void = () => {};
  let listed = false;

  before(async () => {
    roots = makeViewerRoots();
    const local = createLocalSource({ root: roots.root, piDir: null });
    const listGate = new Promise<void>((resolve) => {
      releaseList = resolve;
    });
    // The list answers only when the test lets it: a listing that takes as long as it likes.
    const source: ViewerSource = {
      ...local,
      listSessions: async (): Promise<ViewerSessionSummary[]> => {
        await listGate;
        listed = true;
        return local.listSessions();
      },
    };
    viewer = await startViewer({ source, port: 0 });
    browser = await launchBrowser();
    page = await browser.newPage();
  });
  after(async () => {
    releaseList();
    await browser?.close();
    await viewer?.close();
    if (roots) rmSync(roots.base, { recursive: true, force: true });
  });

  it("shows the linked session at its leaf with the list still pending, then marks it in the list", async () => {
    const ids = roots.branched;
    const key = `sessiontree:${basename(dirname(ids.file))}/${basename(ids.file)}`;
    await page.goto(`${viewer.url}#session=${encodeURIComponent(key)}`);
    await waitForContext(page, ids.leaf);
    assert.equal(listed, false, "the list has not answered yet");
    assert.equal(await hook(page, "selectedId"), ids.leaf);
    assert.equal(await page.locator(".session-item").count(), 0, "no list drawn yet");

    releaseList();
    await waitReady(page);
    assert.equal(listed, true);
    const active = await page.getAttribute(".session-item.active", "data-key");
    assert.equal(active, key, "the open session is marked once the list comes");
    assert.equal(await hook(page, "selectedId"), ids.leaf, "still at the leaf: not opened twice over");
  });
});
