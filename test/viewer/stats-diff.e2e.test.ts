import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import type { SessionHeader } from "../../src/core/entry.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { renderHtmlExport } from "../../src/viewer/html-export.js";
import { createLocalSource } from "../../src/viewer/local-source.js";
import { type RunningViewer, startViewer } from "../../src/viewer/serve.js";
import { mountServiceViewer } from "../../src/viewer/service-page.js";
import type { BranchDiffAnswer, SessionStatsAnswer } from "../../src/viewer/session-insights.js";
import { startTestServer, type TestServer, userMessage } from "../server/helpers.js";
import { messageMaker } from "../support/messages.js";
import { type Browser, launchBrowser, screenshot, waitReady } from "./support/browser.js";
import { clickNode, waitForContext } from "./support/page-helpers.js";
import { makeViewerRoots, type ViewerRoots } from "./support/sessions.js";

/** Opens a session from the list by its key (or the end of it) and waits for its context. */
async function openSession(page: Page, keyEnd: string): Promise<void> {
  await page.click(`.session-item[data-key$="${keyEnd}"]`);
  await page.waitForFunction((end) => {
    const v = (window as unknown as { __viewer: { sessionKey(): string | null } }).__viewer;
    return (
      v.sessionKey()?.endsWith(end) &&
      document.getElementById("context")?.getAttribute("aria-busy") === "false"
    );
  }, keyEnd);
}

async function select(page: Page, id: string): Promise<void> {
  await clickNode(page, id);
  await waitForContext(page, id);
}

/** Waits until a panel box (stats-panel, diff-panel) shows an answer. */
async function shown(page: Page, id: string): Promise<void> {
  await page.waitForFunction((box) => {
    const node = document.getElementById(box);
    return node !== null && !node.hidden && node.getAttribute("aria-busy") === "false";
  }, id);
}

/** A cell of a stats table, by its row's name and its column. */
function cell(page: Page, table: string, row: string, col: string): Promise<string> {
  return page.$eval(`#${table} td[data-row="${row}"][data-col="${col}"]`, (td) => td.textContent ?? "");
}

const int = (n: number) => Math.round(n).toLocaleString("en-US");

/** The entry ids one side of the diff panel lists, in order. */
function sideIds(page: Page, side: "a" | "b"): Promise<string[]> {
  return page.$$eval(`#diff-panel .diff-side[data-side="${side}"] .diff-entry`, (els) =>
    els.map((e) => e.getAttribute("data-entry-id") ?? ""),
  );
}

describe("stats and branch diff in the local viewer, in Chromium", () => {
  let roots: ViewerRoots;
  let viewer: RunningViewer;
  let browser: Browser;
  let page: Page;
  let key = "";

  const api = async <T>(path: string): Promise<T> =>
    (await (await fetch(`${viewer.url}${path}`)).json()) as T;

  before(async () => {
    roots = makeViewerRoots();
    viewer = await startViewer({
      source: createLocalSource({ root: roots.root, piDir: roots.piDir }),
      port: 0,
    });
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.goto(viewer.url);
    await waitReady(page);
    await openSession(page, `_${roots.branched.sessionId}.jsonl`);
    key = (await page.evaluate(() => window.__viewer.sessionKey())) as string;
  });
  after(async () => {
    await browser?.close();
    await viewer?.close();
    rmSync(roots.base, { recursive: true, force: true });
  });

  it("shows the session's stats: tokens by kind, the abandoned share, tools, unknown cost said", async () => {
    assert.equal(await page.isHidden("#stats-panel"), true, "closed until asked for");
    await page.click("#stats-toggle");
    await shown(page, "stats-panel");
    const stats = await api<SessionStatsAnswer>(`api/stats?key=${encodeURIComponent(key)}`);
    assert.equal(await cell(page, "stats-usage", "tokens", "all"), int(stats.total.tokens.total));
    assert.equal(await cell(page, "stats-usage", "input", "leaf's path"), int(stats.leafPath.tokens.input));
    assert.equal(await cell(page, "stats-usage", "tokens", "abandoned"), int(stats.abandoned.tokens.total));
    assert.equal(
      await cell(page, "stats-usage", "assistant messages", "all"),
      int(stats.total.assistantMessages),
    );
    // The tests' replies have tokens and no price: their cost is unknown, never "$0.00".
    assert.equal(await cell(page, "stats-usage", "cost", "all"), "unknown");
    const warning = (await page.textContent("#stats-panel .stats-unknown")) ?? "";
    const n = int(stats.total.assistantMessages);
    assert.equal(warning, `cost unknown for ${n} of ${n} assistant messages`);
    assert.match(
      (await page.textContent("#stats-abandoned-share")) ?? "",
      /^\d+\.\d% of entries · \d+\.\d% of known tokens$/,
    );
    assert.equal(await cell(page, "stats-tools", "edit", "calls"), "2");
    assert.equal(await cell(page, "stats-tools", "edit", "errors"), "1");
    const branches = await page.$$eval("#stats-branches .link", (els) => els.map((e) => e.textContent));
    assert.ok(branches.includes(roots.branched.altAnswer), branches.join());
    // A branch's first entry is a link into the tree.
    await page.click(`#stats-branches .link:text-is("${roots.branched.altAnswer}")`);
    await waitForContext(page, roots.branched.altAnswer);
    await screenshot(page, "stats");
  });

  it("diffs the selected entry's branch with the leaf's: where they part, entries, tools, files", async () => {
    const { branched } = roots;
    await select(page, branched.refactorError);
    assert.equal(await page.textContent("#diff-with"), "diff with leaf");
    await page.click("#diff-with");
    await shown(page, "diff-panel");
    const diff = await api<BranchDiffAnswer>(
      `api/diff?${new URLSearchParams({ key, a: branched.refactorError, b: branched.leaf })}`,
    );
    assert.equal(diff.ancestor?.id, branched.diagnosis);
    assert.match(
      (await page.textContent("#diff-parting")) ?? "",
      new RegExp(`part after ${branched.diagnosis}`),
    );
    assert.deepEqual(
      await sideIds(page, "a"),
      diff.a.entries.map((e) => e.id),
    );
    assert.deepEqual(
      await sideIds(page, "b"),
      diff.b.entries.map((e) => e.id),
    );
    assert.ok((await sideIds(page, "b")).includes(branched.leaf));
    const sideA = (await page.textContent('#diff-panel .diff-side[data-side="a"]')) ?? "";
    assert.match(sideA, /abandoned/);
    assert.match(sideA, /edit ×1 \(1 failed\)/);
    assert.match(sideA, /src\/parser\.ts \(edit, 1 failed\)/);
    assert.match((await page.textContent("#diff-files-both")) ?? "", /src\/parser\.ts/);
    // An entry's line selects it.
    await page.click(`#diff-panel .diff-entry[data-entry-id="${branched.regressionPrompt}"] button`);
    await waitForContext(page, branched.regressionPrompt);
    await screenshot(page, "diff");
  });

  it("the single-file export counts and compares from its own session, asking nothing", async () => {
    const { branched } = roots;
    const sm = SessionManager.open(branched.file);
    const html = renderHtmlExport({
      header: sm.getHeader() as SessionHeader,
      entries: sm.getEntries(),
      leafId: sm.getLeafId(),
    });
    sm.close();
    const file = join(roots.base, "stats-export.html");
    writeFileSync(file, html);
    const exportPage = await browser.newPage();
    const requests: string[] = [];
    exportPage.on("request", (request) => {
      if (!request.url().startsWith("file:")) requests.push(request.url());
    });
    await exportPage.goto(pathToFileURL(file).href);
    await waitReady(exportPage);
    await exportPage.click("#stats-toggle");
    await shown(exportPage, "stats-panel");
    const stats = await api<SessionStatsAnswer>(`api/stats?key=${encodeURIComponent(key)}`);
    assert.equal(await cell(exportPage, "stats-usage", "tokens", "all"), int(stats.total.tokens.total));
    assert.equal(
      await cell(exportPage, "stats-usage", "tokens", "abandoned"),
      int(stats.abandoned.tokens.total),
    );
    await clickNode(exportPage, branched.refactorError);
    await waitForContext(exportPage, branched.refactorError);
    await exportPage.click("#diff-with");
    await shown(exportPage, "diff-panel");
    assert.match(
      (await exportPage.textContent("#diff-parting")) ?? "",
      new RegExp(`part after ${branched.diagnosis}`),
    );
    assert.deepEqual(requests, []);
    await exportPage.close();
  });

  it("compares with a pinned entry instead of the leaf, and forgets it in another session", async () => {
    const { branched } = roots;
    await select(page, branched.altAnswer);
    await page.click("#diff-pin");
    assert.equal(await page.textContent("#diff-pinned"), `pinned: ${branched.altAnswer}`);
    await select(page, branched.refactorError);
    assert.equal(await page.textContent("#diff-with"), "diff with pinned");
    await page.click("#diff-with");
    await page.waitForFunction(
      (a) =>
        document
          .querySelector('#diff-panel .diff-side[data-side="b"] .diff-entry')
          ?.getAttribute("data-entry-id") === a,
      branched.altAnswer,
    );
    await shown(page, "diff-panel");
    assert.match(
      (await page.textContent("#diff-parting")) ?? "",
      new RegExp(`part after ${branched.firstPrompt}`),
    );
    assert.deepEqual(await sideIds(page, "b"), [branched.altAnswer]);
    // reload reads the session again: what is shown is counted again, the same.
    await page.evaluate(() => {
      for (const id of ["stats-usage", "diff-parting"])
        (document.getElementById(id) as HTMLElement).dataset.old = "1";
    });
    await page.click("#reload");
    await page.waitForFunction(() =>
      ["stats-usage", "diff-parting"].every((id) => {
        const node = document.getElementById(id);
        return (
          node !== null && node.dataset.old === undefined && node.closest("[aria-busy='false']") !== null
        );
      }),
    );
    assert.deepEqual(await sideIds(page, "b"), [branched.altAnswer]);
    await page.click("#diff-panel-close");
    assert.equal(await page.isHidden("#diff-panel"), true);
    await openSession(page, "large-session.jsonl");
    assert.equal(await page.isHidden("#stats-panel"), true, "another session's stats are not shown");
    assert.equal(await page.textContent("#diff-pinned"), "");
    assert.equal(await page.textContent("#diff-with"), "diff with leaf");
    // A pi session with real usage: tokens and cost known.
    await page.click("#stats-toggle");
    await shown(page, "stats-panel");
    const piKey = (await page.evaluate(() => window.__viewer.sessionKey())) as string;
    const stats = await api<SessionStatsAnswer>(`api/stats?key=${encodeURIComponent(piKey)}`);
    assert.equal(await cell(page, "stats-usage", "tokens", "all"), int(stats.total.tokens.total));
    assert.match(await cell(page, "stats-usage", "cost", "all"), /^\$\d+\.\d\d$/);
    assert.deepEqual(browser.errors, []);
  });
});

describe("stats and branch diff on the service, in Chromium", () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let key = "";
  let sessionId = "";
  const ids: Record<string, string> = {};
  /** The API paths the page asked for. */
  const asked: string[] = [];
  const messages = messageMaker(1_780_000_000_000);
  const reply = (
    text: string,
    input: number,
    cost: number,
    call?: { id: string; name: string; path: string },
  ) => ({
    type: "message",
    message: {
      ...messages.assistant(text),
      ...(call
        ? { content: [{ type: "toolCall", id: call.id, name: call.name, arguments: { path: call.path } }] }
        : {}),
      usage: {
        input,
        output: 10,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: input + 10,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
      },
    },
  });
  const result = (callId: string, name: string, isError: boolean) => ({
    type: "message",
    message: messages.toolResult(callId, name, isError ? "failed" : "ok", isError),
  });

  const api = (method: string, path: string, body?: unknown) => server.call(method, path, { key, body });
  const append = async (drafts: unknown[]): Promise<string[]> => {
    const answer = await api("POST", `/v1/sessions/${sessionId}/entries`, { entries: drafts });
    assert.equal(answer.status, 200, answer.text);
    return answer.json.appended;
  };

  before(async () => {
    server = await startTestServer("sqlite", { extend: (app) => mountServiceViewer(app) });
    key = await server.key("alice");
    sessionId = (await api("POST", "/v1/sessions", { cwd: "/work/app", name: "Branchy" })).json.id;
    [ids.u1 = "", ids.a1 = "", ids.u2 = "", ids.a2 = "", ids.r2 = ""] = await append([
      userMessage("fix the build"),
      reply("looking", 100, 0.25),
      userMessage("rewrite everything"),
      reply("rewriting", 1000, 1, { id: "c1", name: "write", path: "/work/app/src/a.ts" }),
      result("c1", "write", true),
    ]);
    assert.equal((await api("POST", `/v1/sessions/${sessionId}/branches`, { fromId: ids.a1 })).status, 200);
    [ids.u3 = "", ids.a3 = "", ids.r3 = "", ids.a4 = ""] = await append([
      userMessage("just patch it"),
      reply("patching", 200, 0.5, { id: "c2", name: "edit", path: "/work/app/src/a.ts" }),
      result("c2", "edit", false),
      reply("patched", 50, 0.125),
    ]);
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith("/v1/")) asked.push(url.pathname);
    });
    await page.goto(`${server.url}/`);
    await page.fill("#credential", key);
    await page.press("#credential", "Enter");
    await waitReady(page);
    await openSession(page, sessionId);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it("shows the stats the API counts (GET …/stats, as the signed-in user)", async () => {
    await page.click("#stats-toggle");
    await shown(page, "stats-panel");
    assert.ok(asked.includes(`/v1/sessions/${sessionId}/stats`), asked.join("\n"));
    const stats = (await api("GET", `/v1/sessions/${sessionId}/stats`)).json as SessionStatsAnswer;
    assert.equal(stats.total.tokens.total, 1390);
    assert.equal(await cell(page, "stats-usage", "tokens", "all"), "1,390");
    assert.equal(await cell(page, "stats-usage", "tokens", "abandoned"), int(stats.abandoned.tokens.total));
    assert.equal(await cell(page, "stats-usage", "cost", "all"), "$1.88");
    assert.equal(await cell(page, "stats-usage", "cost", "abandoned"), "$1.00");
    assert.equal(await cell(page, "stats-models", "anthropic/claude-sonnet-4-5", "replies"), "4");
    assert.equal(await cell(page, "stats-tools", "write", "errors"), "1");
    assert.equal(await page.locator("#stats-panel .stats-unknown").count(), 0, "everything is known");
    assert.match((await page.textContent("#stats-abandoned-share")) ?? "", /of known tokens/);
  });

  it("diffs in the page, from the entries it holds: no diff request", async () => {
    await select(page, ids.r2 as string);
    await page.click("#diff-with");
    await shown(page, "diff-panel");
    assert.match((await page.textContent("#diff-parting")) ?? "", new RegExp(`part after ${ids.a1}`));
    assert.deepEqual(await sideIds(page, "a"), [ids.u2, ids.a2, ids.r2]);
    assert.deepEqual(await sideIds(page, "b"), [ids.u3, ids.a3, ids.r3, ids.a4]);
    const sideA = (await page.textContent('#diff-panel .diff-side[data-side="a"]')) ?? "";
    assert.match(sideA, /1,010 tokens · \$1\.00/);
    assert.match(sideA, /src\/a\.ts \(write, 1 failed\)/);
    const sideB = (await page.textContent('#diff-panel .diff-side[data-side="b"]')) ?? "";
    assert.match(sideB, /the leaf/);
    assert.match(sideB, /edit ×1/);
    assert.equal(await page.textContent("#diff-files-both"), "Files written on both branches: src/a.ts");
    assert.ok(!asked.some((path) => path.includes("diff")), asked.join("\n"));
    await screenshot(page, "service-diff");
    assert.deepEqual(browser.errors, []);
  });
});
