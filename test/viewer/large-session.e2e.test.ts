/**
 * A 100,000-entry session in Chromium: the page gets the tree's shape and asks for bodies a click
 * at a time, draws only the rows in view, and selects, folds, scrolls and pages the context. Times
 * are checked loosely (CI machines are noisy): `bench/viewer.ts` measures them.
 */
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import type { SessionEntry } from "../../src/core/entry.js";
import { SessionTree } from "../../src/core/tree.js";
import { sessionDirFor, sessionFileName } from "../../src/file/paths.js";
import { entryLine } from "../../src/viewer/browser/entry-line.js";
import { contextInTree } from "../../src/viewer/context-at.js";
import { renderHtmlExport } from "../../src/viewer/html-export.js";
import { createLocalSource } from "../../src/viewer/local-source.js";
import { type RunningViewer, startViewer } from "../../src/viewer/serve.js";
import { type Browser, launchBrowser, waitReady } from "./support/browser.js";
import { clickNode, contextEntryIds, hook, nextFrame, waitForContext } from "./support/page-helpers.js";
import { bigSessionEntries, makeViewerRoots, type ViewerRoots } from "./support/sessions.js";

const SIZE = 100_000;

describe("a 100,000-entry session in the viewer", () => {
  let roots: ViewerRoots;
  let viewer: RunningViewer;
  let browser: Browser;
  let page: Page;
  let tree: SessionTree;
  let leafId: string;
  const requests: string[] = [];
  let openMs = 0;

  before(async () => {
    roots = makeViewerRoots({ bigSize: SIZE });
    const big = bigSessionEntries(SIZE);
    tree = new SessionTree();
    for (const entry of big.entries) tree.load(entry);
    leafId = big.leafId;
    viewer = await startViewer({ source: createLocalSource({ root: roots.root, piDir: null }), port: 0 });
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on("request", (request) => requests.push(new URL(request.url()).pathname));
    const folder = basename(sessionDirFor(roots.root, big.header.cwd, "sessiontree"));
    const key = `sessiontree:${folder}/${sessionFileName(big.header.timestamp, big.header.id)}`;
    const t0 = Date.now();
    await page.goto(`${viewer.url}#session=${encodeURIComponent(key)}`);
    await waitReady(page);
    await waitForContext(page, leafId);
    openMs = Date.now() - t0;
  });
  after(async () => {
    await browser?.close();
    await viewer?.close();
    if (roots) rmSync(roots.base, { recursive: true, force: true });
  });

  it("opens at the leaf with the tree and the context shown, without the whole session sent", async (t) => {
    t.diagnostic(`opened in ${openMs} ms, page ${JSON.stringify(await hook(page, "timings"))}`);
    assert.ok(openMs < 30_000, `opened in ${openMs} ms`);
    assert.equal(await hook(page, "selectedId"), leafId);
    assert.equal(await page.isVisible("#tree"), true);
    assert.match((await page.textContent("#context-summary")) ?? "", /messages · .* · path of \d+ entries/);
    assert.equal(await page.textContent("#entry-id"), leafId);
    const frame = await hook(page, "frame");
    assert.ok(
      frame && frame.drawn > 5 && frame.drawn < 80,
      `only the rows in view are drawn: ${frame?.drawn}`,
    );
    assert.ok(!requests.includes("/api/session"), `the page asked for shape and pages only: ${requests}`);
    assert.ok(requests.includes("/api/shape"));
    const shown = await page.$$eval("#context-messages .ctx-msg", (els) => els.length);
    assert.equal(shown, 200, "the latest 200 messages of the context, the rest on request");
  });

  it("draws each row's text, asked for a page at a time as rows come into view", async () => {
    // The shape leaves the texts out but for the rows around the leaf, sent with it (startTexts):
    // rows away from the leaf ask for theirs.
    for (const id of [leafId, "e0000014"]) {
      await hook(page, "center", id);
      const expected = entryLine(tree.getEntry(id) as SessionEntry).text;
      await page.waitForFunction(
        ([at, text]) =>
          (window as unknown as { __viewer: { style(i: string): { text: string } | null } }).__viewer.style(
            at as string,
          )?.text === text,
        [id, expected],
      );
    }
    const texts = requests.filter((path) => path === "/api/texts").length;
    assert.ok(texts > 0 && texts < 10, `${texts} text pages for a screen away from the leaf`);
  });

  it("selects an entry far from the leaf: its entry and the context there, as core projects it", async () => {
    const far = "e0000014";
    const t0 = Date.now();
    await clickNode(page, far);
    await waitForContext(page, far);
    const ms = Date.now() - t0;
    assert.ok(ms < 10_000, `selected in ${ms} ms`);
    assert.equal(await hook(page, "selectedId"), far);
    assert.equal(await page.textContent("#entry-id"), far);
    assert.deepEqual(await contextEntryIds(page), contextInTree(tree, far).messageEntryIds.slice(-200));
  });

  it("pages the leaf's context: earlier messages a page at a time, in order", async () => {
    await clickNode(page, leafId);
    await waitForContext(page, leafId);
    const expected = contextInTree(tree, leafId).messageEntryIds;
    assert.ok(expected.length > 1200, `a long context: ${expected.length}`);
    await page.click("#context-earlier");
    await page.waitForFunction(() => document.querySelectorAll("#context-messages .ctx-msg").length === 1200);
    assert.deepEqual(await contextEntryIds(page), expected.slice(-1200));
  });

  it("folds and unfolds a subtree of almost every entry, and scrolls drawing only what is in view", async () => {
    const first = tree.getEntries()[0]?.id as string;
    const rows = await hook(page, "rowCount");
    await hook(page, "center", first);
    await nextFrame(page);
    const point = (await hook(page, "clientPoint", first)) as { x: number; y: number };
    await page.mouse.dblclick(point.x, point.y);
    assert.ok(((await hook(page, "style", first))?.hidden ?? 0) > SIZE - 100, "the subtree is folded");
    assert.ok((await hook(page, "rowCount")) < 10);
    await page.mouse.dblclick(point.x, point.y);
    assert.equal(await hook(page, "rowCount"), rows);

    const box = (await page.locator("#tree").boundingBox()) as { x: number; y: number; width: number };
    await page.mouse.move(box.x + box.width / 2, box.y + 200);
    const before = await hook(page, "frame");
    for (let i = 0; i < 5; i++) await page.mouse.wheel(0, 3_000);
    await nextFrame(page);
    const afterScroll = await hook(page, "frame");
    assert.ok(afterScroll && before && afterScroll.from > before.from, "the view moved down");
    assert.ok(afterScroll.drawn < 80, `drawn ${afterScroll.drawn} rows`);
  });

  it("unfolds on a second double-click a node that its fold left as the last row", async () => {
    // A prompt on the main line a third of the way down: folding it hides everything after it.
    const rows = await hook(page, "rowCount");
    const middle = (await hook(page, "idAtRow", Math.floor(rows / 3))) as string;
    await hook(page, "center", middle);
    await nextFrame(page);
    const at = async () => (await hook(page, "clientPoint", middle)) as { x: number; y: number };
    const before = await hook(page, "rowCount");
    await page.mouse.dblclick((await at()).x, (await at()).y);
    assert.equal(await hook(page, "rowOf", middle), (await hook(page, "rowCount")) - 1, "it is the last row");
    const point = await at();
    await page.mouse.dblclick(point.x, point.y);
    assert.deepEqual(await at(), point, "a click on a row in view does not move the view");
    assert.equal(await hook(page, "rowCount"), before, "the second double-click unfolds it");
    assert.equal(await hook(page, "selectedId"), middle);
  });

  it("draws the single-file export of the same session, offline", async () => {
    const big = bigSessionEntries(SIZE);
    const file = join(roots.base, "big-export.html");
    writeFileSync(file, renderHtmlExport(big));
    const exported = await browser.newPage();
    const t0 = Date.now();
    await exported.goto(pathToFileURL(file).href);
    await waitReady(exported);
    await waitForContext(exported, leafId);
    const ms = Date.now() - t0;
    assert.ok(ms < 60_000, `opened in ${ms} ms`);
    const far = "e0000014";
    await clickNode(exported, far);
    await waitForContext(exported, far);
    assert.deepEqual(await contextEntryIds(exported), contextInTree(tree, far).messageEntryIds.slice(-200));
    const expected = entryLine(tree.getEntry(far) as SessionEntry).text;
    await exported.waitForFunction(
      ([at, text]) =>
        (window as unknown as { __viewer: { style(i: string): { text: string } | null } }).__viewer.style(
          at as string,
        )?.text === text,
      [far, expected],
    );
    await exported.close();
  });

  it("raised no error in the page", () => {
    assert.deepEqual(browser.errors, []);
  });
});
