import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import type { SessionEntry, SessionHeader } from "../../src/core/entry.js";
import { sessionDirFor, sessionFileName } from "../../src/file/paths.js";
import { SessionFile } from "../../src/file/session-file.js";
import { importClaudeCode } from "../../src/format/claude-code.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { renderHtmlExport } from "../../src/viewer/html-export.js";
import { createLocalSource } from "../../src/viewer/local-source.js";
import { type RunningViewer, startViewer } from "../../src/viewer/serve.js";
import { type Browser, launchBrowser, screenshot, waitReady } from "./support/browser.js";
import { claudeSubagentLines } from "./support/claude-subagents.js";
import {
  clickNode,
  contextEntryIds,
  hook,
  nextFrame,
  pixelAt,
  waitForContext,
} from "./support/page-helpers.js";
import { bigSessionEntries, makeViewerRoots, type ViewerRoots } from "./support/sessions.js";

/** The context SessionManager (core's projection) builds at an entry: what the panel must list. */
function expectedContextIds(file: string, at: string): string[] {
  const sm = SessionManager.open(file);
  try {
    return sm.buildSessionContextAt(at).messageEntryIds;
  } finally {
    sm.close();
  }
}

describe("the viewer in Chromium", () => {
  let roots: ViewerRoots;
  let viewer: RunningViewer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    roots = makeViewerRoots({ bigSize: 10_000 });
    viewer = await startViewer({
      source: createLocalSource({ root: roots.root, piDir: roots.piDir }),
      port: 0,
    });
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.goto(viewer.url);
    await waitReady(page);
  });
  after(async () => {
    await browser?.close();
    await viewer?.close();
    rmSync(roots.base, { recursive: true, force: true });
  });

  /** Opens a session from the list by the end of its file name, and waits for its context. */
  async function openByFile(fileName: string): Promise<void> {
    await page.click(`.session-item[data-key$="${fileName}"]`);
    await page.waitForFunction((name) => {
      const v = (window as unknown as { __viewer: { sessionKey(): string | null } }).__viewer;
      return (
        v.sessionKey()?.endsWith(name) &&
        document.getElementById("context")?.getAttribute("aria-busy") === "false"
      );
    }, fileName);
  }

  it("lists sessiontree's sessions and pi's, grouped by source", async () => {
    const groups = await page.$$eval(".group-title", (els) => els.map((e) => e.textContent));
    assert.deepEqual(groups, ["sessiontree · 2", "pi · 2"]);
    const names = await page.$$eval(".session-name", (els) => els.map((e) => e.textContent));
    assert.ok(names.includes("Fix nested-list parsing"), names.join(" | "));
    await page.fill("#search", "nested-list");
    assert.equal(await page.locator(".session-item").count(), 1);
    await page.fill("#search", "");
  });

  it("draws the leaf highlighted, abandoned branches dimmed, labels and summaries marked", async () => {
    const ids = roots.branched;
    await openByFile(`${ids.sessionId}.jsonl`);
    assert.equal(await hook(page, "selectedId"), ids.leaf, "the page opens at the leaf");
    const leaf = await hook(page, "style", ids.leaf);
    assert.deepEqual([leaf?.leaf, leaf?.dimmed, leaf?.label], [true, false, "done"]);
    for (const abandoned of [ids.altAnswer, ids.refactorPrompt, ids.refactorError]) {
      await hook(page, "reveal", abandoned);
      const style = await hook(page, "style", abandoned);
      assert.deepEqual([style?.dimmed, style?.onPath], [true, false], `${abandoned} is off the leaf's path`);
    }
    assert.equal((await hook(page, "style", ids.diagnosis))?.label, "diagnosis");
    assert.equal((await hook(page, "style", ids.diagnosis))?.dimmed, false);
    assert.equal((await hook(page, "style", ids.branchSummary))?.kind, "branchSummary");
    assert.equal((await hook(page, "style", ids.compaction))?.kind, "compaction");

    // And on the canvas itself: the amber leaf ring, a full-colour dot on the path, a faded one off it.
    await hook(page, "center", ids.leaf);
    await nextFrame(page);
    const leafPoint = (await hook(page, "clientPoint", ids.leaf)) as { x: number; y: number };
    assert.deepEqual((await pixelAt(page, leafPoint.x + 10, leafPoint.y)).slice(0, 3), [245, 158, 11]);
    const onPath = (await hook(page, "clientPoint", ids.diagnosis)) as { x: number; y: number };
    const offPath = (await hook(page, "clientPoint", ids.altAnswer)) as { x: number; y: number };
    const [pathDot, fadedDot] = [
      await pixelAt(page, onPath.x, onPath.y),
      await pixelAt(page, offPath.x, offPath.y),
    ];
    assert.deepEqual(pathDot.slice(0, 3), [22, 163, 74], "assistant green on the path");
    assert.equal(pathDot[3], 255, "drawn opaque on the path");
    assert.ok((fadedDot[3] as number) < 128, `drawn faded off the path: ${fadedDot}`);
    await screenshot(page, "branched");
  });

  it("shows the clicked entry and the context the model would see from it", async () => {
    const ids = roots.branched;
    await clickNode(page, ids.refactorError);
    await waitForContext(page, ids.refactorError);
    assert.equal(await hook(page, "selectedId"), ids.refactorError);
    assert.equal(await page.textContent("#entry-id"), ids.refactorError);
    assert.match((await page.textContent("#entry-badges")) ?? "", /abandoned branch/);
    assert.deepEqual(await contextEntryIds(page), expectedContextIds(ids.file, ids.refactorError));
    const last = page.locator("#context-messages .ctx-msg").last();
    assert.equal(await last.getAttribute("data-role"), "toolResult");
    assert.match((await last.textContent()) ?? "", /edit failed: old text not found/);
    await screenshot(page, "abandoned-context");

    await clickNode(page, ids.regressionPrompt);
    await waitForContext(page, ids.regressionPrompt);
    const roles = await page.$$eval("#context-messages .ctx-msg", (els) =>
      els.map((e) => e.getAttribute("data-role")),
    );
    assert.ok(roles.includes("branchSummary"), `the branch summary is in context: ${roles}`);
    assert.deepEqual(await contextEntryIds(page), expectedContextIds(ids.file, ids.regressionPrompt));
    await screenshot(page, "summary-context");

    await clickNode(page, ids.leaf);
    await waitForContext(page, ids.leaf);
    const first = page.locator("#context-messages .ctx-msg").first();
    assert.equal(await first.getAttribute("data-role"), "compactionSummary");
    assert.match((await first.textContent()) ?? "", /COMPACTED/);
    assert.deepEqual(await contextEntryIds(page), expectedContextIds(ids.file, ids.leaf));
    assert.match((await page.textContent("#context-summary")) ?? "", /thinking medium/);
  });

  it("jumps to an entry from the context panel, moves with the keyboard, folds and pans", async () => {
    const ids = roots.branched;
    await page.click(`#context-messages .ctx-msg[data-entry-id="${ids.regressionPrompt}"]`);
    assert.equal(await hook(page, "selectedId"), ids.regressionPrompt);
    await page.keyboard.press("ArrowUp");
    assert.equal(await hook(page, "selectedId"), ids.branchSummary);

    const rows = await hook(page, "rowCount");
    const point = (await hook(page, "clientPoint", ids.diagnosis)) as { x: number; y: number };
    await page.mouse.dblclick(point.x, point.y);
    const folded = await hook(page, "style", ids.diagnosis);
    assert.ok((folded?.hidden ?? 0) > 10, `the subtree is folded: ${folded?.hidden}`);
    assert.ok((await hook(page, "rowCount")) < rows - 10);
    await page.mouse.dblclick(point.x, point.y);
    assert.equal(await hook(page, "rowCount"), rows);

    const selected = await hook(page, "selectedId");
    const before = await hook(page, "viewport");
    const box = (await page.locator("#tree").boundingBox()) as {
      x: number;
      y: number;
      width: number;
      height: number;
    };
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.keyboard.down("Control");
    await page.mouse.wheel(0, -300);
    await page.keyboard.up("Control");
    const zoomed = await hook(page, "viewport");
    assert.ok(zoomed.scale > before.scale, `zoomed in: ${before.scale} -> ${zoomed.scale}`);
    await page.mouse.move(box.x + 300, box.y + 300);
    await page.mouse.down();
    await page.mouse.move(box.x + 360, box.y + 200, { steps: 4 });
    await page.mouse.up();
    const panned = await hook(page, "viewport");
    assert.ok(
      Math.abs(panned.ox - zoomed.ox - 60) < 1 && Math.abs(panned.oy - zoomed.oy + 100) < 1,
      "dragging pans",
    );
    assert.equal(await hook(page, "selectedId"), selected, "a drag is not a click");
  });

  it("opens a deep link at its entry, and reload shows entries appended since", async () => {
    const ids = roots.branched;
    const key = (await hook(page, "sessionKey")) as string;
    const linked = await browser.newPage();
    await linked.goto(`${viewer.url}#session=${encodeURIComponent(key)}&entry=${ids.diagnosis}`);
    await waitReady(linked);
    assert.equal(await hook(linked, "selectedId"), ids.diagnosis);
    await waitForContext(linked, ids.diagnosis);

    const sm = SessionManager.open(ids.file);
    sm.branch(ids.leaf);
    const added = sm.appendMessage({
      role: "user",
      content: "a question asked while the viewer was open",
      timestamp: Date.now(),
    });
    sm.close();
    assert.equal(await hook(linked, "rowOf", added), -1);
    await linked.click("#reload");
    await linked.waitForFunction(
      (id) => (window as unknown as { __viewer: { rowOf(i: string): number } }).__viewer.rowOf(id) >= 0,
      added,
    );
    assert.equal(await hook(linked, "selectedId"), ids.diagnosis, "the selection survives a reload");
    assert.equal((await hook(linked, "style", added))?.leaf, true, "the new entry is the leaf");
    await linked.close();
  });

  it("opens pi's large session at pi's leaf with pi's 914 context messages", async () => {
    await openByFile("large-session.jsonl");
    const summary = (await page.textContent("#context-summary")) ?? "";
    assert.match(summary, /^914 messages · anthropic\/claude-sonnet-4-5 · thinking off/);
    assert.equal(await page.locator("#context-messages .ctx-msg").count(), 200, "the latest 200 first");
    await page.click("text=show the 714 earlier messages");
    await page.waitForFunction(() => document.querySelectorAll("#context-messages .ctx-msg").length === 914);
    const sm = SessionManager.open(
      join(roots.piDir, "sessions", "--Users-badlogic-workspaces-pi-mono--", "large-session.jsonl"),
    );
    // A v1 file gets fresh ids on every read, so compare what the messages are, in order.
    const expected = sm.buildSessionContext().messages.map((m) => m.role);
    sm.close();
    const roles = await page.$$eval("#context-messages .ctx-msg", (els) =>
      els.map((e) => e.getAttribute("data-role")),
    );
    assert.deepEqual(roles, expected);
    await screenshot(page, "pi-session");
  });

  it("keeps a 10,000-entry session responsive: drawn by viewport, a click answered quickly", async (t) => {
    const t0 = Date.now();
    await openByFile("2026-01-01T00-00-00-000Z_big-session-0001.jsonl");
    const openMs = Date.now() - t0;
    const frame = await hook(page, "frame");
    assert.ok(frame && frame.drawn < 80, `only the rows in view are drawn: ${frame?.drawn}`);
    assert.ok(openMs < 15_000, `opened in ${openMs} ms`);
    const rows = await hook(page, "rowCount");
    const prompt = "e0000014"; // an entry near the start, far from the leaf
    const t1 = Date.now();
    await clickNode(page, prompt);
    await waitForContext(page, prompt);
    const clickMs = Date.now() - t1;
    assert.ok(clickMs < 5_000, `a click answered in ${clickMs} ms`);
    const frames: number[] = [];
    for (let i = 0; i < 5; i++) {
      await page.mouse.wheel(0, 2_000);
      await nextFrame(page);
      frames.push((await hook(page, "frame"))?.ms ?? Number.NaN);
    }
    const timings = await hook(page, "timings");
    t.diagnostic(
      `10k session: open ${openMs} ms, ${rows} rows, click ${clickMs} ms, frames ${frames.map((f) => f.toFixed(1)).join("/")} ms, page ${JSON.stringify(timings)}`,
    );
    assert.ok(Math.max(...frames) < 100, `frames: ${frames}`);
    // For the screenshot: a fork deep in the session, with its abandoned attempt.
    const big = bigSessionEntries(10_000);
    const fork = big.entries.find(
      (e) => e.type === "message" && JSON.stringify(e.message).includes("Abandoned try 300.0"),
    );
    await clickNode(page, fork?.id as string);
    await waitForContext(page, fork?.id as string);
    await screenshot(page, "large");
  });

  it("draws the single-file HTML export offline, with the context at a clicked node", async () => {
    const ids = roots.branched;
    const sm = SessionManager.open(ids.file);
    const hostile = '</script><img src=x onerror="window.__pwned=1"> <!-- \u2028';
    const entries = [
      ...sm.getEntries(),
      {
        type: "message",
        id: "hostile1",
        parentId: ids.leaf,
        timestamp: new Date().toISOString(),
        message: { role: "user", content: hostile },
      },
      {
        // Another tool's file may leave a call's arguments out.
        type: "message",
        id: "bareCall1",
        parentId: "hostile1",
        timestamp: new Date().toISOString(),
        message: {
          role: "assistant",
          content: [{ type: "toolCall", id: "c1", name: "list_files" }],
          provider: "p",
          model: "m",
        },
      },
    ] as SessionEntry[];
    const leafId = sm.getLeafId();
    const html = renderHtmlExport({ header: sm.getHeader() as SessionHeader, entries, leafId });
    sm.close();
    const file = join(roots.base, "export.html");
    writeFileSync(file, html);
    const exportPage = await browser.newPage();
    const requests: string[] = [];
    exportPage.on("request", (request) => {
      if (!request.url().startsWith("file:")) requests.push(request.url());
    });
    await exportPage.goto(pathToFileURL(file).href);
    await waitReady(exportPage);
    assert.equal(await hook(exportPage, "selectedId"), leafId, "opens at the leaf it was given");
    assert.equal(
      (await hook(exportPage, "style", ids.diagnosis))?.label,
      "diagnosis",
      "labels read from the entries",
    );
    await clickNode(exportPage, ids.refactorError);
    await waitForContext(exportPage, ids.refactorError);
    assert.deepEqual(await contextEntryIds(exportPage), expectedContextIds(ids.file, ids.refactorError));
    await clickNode(exportPage, ids.leaf);
    await waitForContext(exportPage, ids.leaf);
    assert.deepEqual(await contextEntryIds(exportPage), expectedContextIds(ids.file, ids.leaf));
    await clickNode(exportPage, "hostile1");
    await waitForContext(exportPage, "hostile1");
    assert.ok(
      ((await exportPage.textContent("#entry")) ?? "").includes(hostile),
      "session text is shown as text",
    );
    assert.equal(
      await exportPage.evaluate(() => (window as unknown as { __pwned?: number }).__pwned),
      undefined,
    );
    await clickNode(exportPage, "bareCall1");
    await waitForContext(exportPage, "bareCall1");
    const call = (await exportPage.textContent("#entry .toolcall")) ?? "";
    assert.ok(call.includes("list_files") && call.includes("{}"), `a call without arguments: ${call}`);
    assert.ok(!call.includes("undefined"), `a call without arguments: ${call}`);
    assert.deepEqual(requests, [], "the export makes no network request");
    await clickNode(exportPage, ids.compaction);
    await waitForContext(exportPage, ids.compaction);
    await screenshot(exportPage, "export");
    await exportPage.close();
  });

  it("shows where it looked when there are no sessions at all", async () => {
    const empty = join(roots.base, "empty");
    mkdirSync(empty);
    const bare = await startViewer({
      source: createLocalSource({ root: join(empty, "st"), piDir: join(empty, "pi") }),
      port: 0,
    });
    try {
      const emptyPage = await browser.newPage();
      await emptyPage.goto(bare.url);
      await waitReady(emptyPage);
      const text = (await emptyPage.textContent("#empty")) ?? "";
      assert.match(text, /No sessions found/);
      assert.ok(
        text.includes(join(empty, "st", "sessions")) && text.includes(join(empty, "pi", "sessions")),
        text,
      );
      for (const hint of ["sessiontree import", "~/.claude/projects/", "~/.codex/sessions/"])
        assert.ok(text.includes(hint), `the empty state mentions ${hint}: ${text}`);
      await screenshot(emptyPage, "empty");
      await emptyPage.close();
    } finally {
      await bare.close();
    }
  });

  it("shows a Claude Code subagent's name and text; a header-only session says it has no entries", async () => {
    const root = join(roots.base, "imported");
    const claude = importClaudeCode(claudeSubagentLines().join("\n"));
    const dir = sessionDirFor(root, claude.header.cwd, "sessiontree");
    mkdirSync(dir, { recursive: true });
    SessionFile.create(
      join(dir, sessionFileName(claude.header.timestamp, claude.header.id)),
      claude.header,
      claude.entries,
    ).close();
    const header: SessionHeader = {
      ...claude.header,
      id: "header-only-0001",
      timestamp: "2026-01-01T00:00:00.000Z",
    };
    writeFileSync(join(dir, sessionFileName(header.timestamp, header.id)), `${JSON.stringify(header)}\n`);
    const other = await startViewer({ source: createLocalSource({ root, piDir: null }), port: 0 });
    try {
      const otherPage = await browser.newPage();
      await otherPage.goto(
        `${other.url}#session=${encodeURIComponent(`sessiontree:${basename(dir)}/${sessionFileName(claude.header.timestamp, claude.header.id)}`)}`,
      );
      await waitReady(otherPage);
      assert.equal(await otherPage.isHidden("#no-entries"), true);
      await hook(otherPage, "reveal", "sa4");
      assert.equal(
        (await hook(otherPage, "style", "sa4"))?.text,
        "Subagent Explore · assistant: Found 3 sleep calls.",
      );
      await clickNode(otherPage, "sa2");
      await waitForContext(otherPage, "sa2");
      const entry = (await otherPage.textContent("#entry")) ?? "";
      assert.ok(
        entry.includes("custom · claude-code.sidechain") && entry.includes("Subagent Explore · assistant"),
        entry,
      );
      assert.ok(entry.includes("→ Grep"), entry);

      await otherPage.click('.session-item[data-session-id="header-only-0001"]');
      await otherPage.waitForFunction(() => !document.getElementById("no-entries")?.hidden);
      const none = (await otherPage.textContent("#no-entries")) ?? "";
      assert.match(none, /no entries yet/);
      assert.match(none, /press reload/);
      assert.equal(((await otherPage.textContent("#entry")) ?? "").trim(), "");
      await otherPage.close();
    } finally {
      await other.close();
    }
  });

  it("shows an entry another writer left without a timestamp, and what hangs under it", async () => {
    const root = join(roots.base, "untimed");
    const header: SessionHeader = {
      type: "session",
      version: 3,
      id: "untimed-0001",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/work/untimed",
    };
    const at = "2026-01-01T00:00:01.000Z";
    const user = (text: string) => ({ role: "user", content: text, timestamp: 0 });
    const lines = [
      header,
      { type: "message", id: "ut1", parentId: null, timestamp: at, message: user("first question") },
      { type: "message", id: "ut2", parentId: "ut1", message: user("said at no time") },
      { type: "message", id: "ut3", parentId: "ut2", timestamp: at, message: user("last question") },
    ];
    const dir = sessionDirFor(root, header.cwd, "sessiontree");
    mkdirSync(dir, { recursive: true });
    const file = sessionFileName(header.timestamp, header.id);
    writeFileSync(join(dir, file), `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const other = await startViewer({ source: createLocalSource({ root, piDir: null }), port: 0 });
    try {
      const otherPage = await browser.newPage();
      await otherPage.goto(
        `${other.url}#session=${encodeURIComponent(`sessiontree:${basename(dir)}/${file}`)}`,
      );
      await waitReady(otherPage);
      await waitForContext(otherPage, "ut3");
      // The leaf's path runs through it: the context holds all three questions, as pi's does.
      const context = (await otherPage.textContent("#context")) ?? "";
      assert.ok(context.includes("first question") && context.includes("said at no time"), context);
      await hook(otherPage, "reveal", "ut2");
      await clickNode(otherPage, "ut2");
      await waitForContext(otherPage, "ut2");
      const entry = (await otherPage.textContent("#entry")) ?? "";
      assert.ok(entry.includes("not given"), entry);
      assert.doesNotMatch(entry, /undefined|NaN/);
      await otherPage.close();
    } finally {
      await other.close();
    }
  });

  it("raised no error in any page", () => {
    assert.deepEqual(browser.errors, []);
  });
});
