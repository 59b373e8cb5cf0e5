import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { SignJWT } from "jose";
import type { Page, Request } from "playwright-core";
import type { SessionEntry } from "../../src/core/entry.js";
import { mountServiceViewer } from "../../src/viewer/service-page.js";
import { startTestServer, type TestServer, userMessage } from "../server/helpers.js";
import { messageMaker } from "../support/messages.js";
import { type Browser, launchBrowser, screenshot, waitReady } from "./support/browser.js";
import { clickNode, contextEntryIds, hook, waitForContext } from "./support/page-helpers.js";

const JWT_SECRET = "service-viewer-test-secret-of-enough-length";
const messages = messageMaker(1_770_000_000_000);
const reply = (text: string) => ({ type: "message", message: messages.assistant(text) });

interface Logged {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
}

describe("the viewer on the service, in Chromium, with two users", () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let keyA: string;
  let keyB: string;
  /** Every request of A's page and its answer, as the browser saw them. */
  const log: Logged[] = [];
  /** Requests being recorded: every check of the log waits for them first. */
  const pending = new Set<Promise<void>>();
  const ids = { a1: "", a2: "", b1: "" };
  const entries: Record<string, string> = {};

  const api = (method: string, path: string, body?: unknown, key = keyA) =>
    server.call(method, path, { key, body });
  const summary = async (id: string) => (await api("GET", `/v1/sessions/${id}`)).json;

  async function append(sessionId: string, drafts: unknown[]): Promise<string[]> {
    const answer = await api("POST", `/v1/sessions/${sessionId}/entries`, { entries: drafts });
    assert.equal(answer.status, 200, answer.text);
    return answer.json.appended;
  }

  before(async () => {
    server = await startTestServer("sqlite", {
      jwt: { secret: JWT_SECRET },
      extend: (app) => mountServiceViewer(app),
    });
    keyA = await server.key("alice");
    keyB = await server.key("bob");
    // Alice: a session branched at her first answer, and a second one.
    ids.a1 = (
      await api("POST", "/v1/sessions", { cwd: "/work/parser", name: "Fix the list parser" })
    ).json.id;
    const [u1, a1, u2, a2] = await append(ids.a1, [
      userMessage("the nested list parser drops items"),
      reply("I will read parse.ts first"),
      userMessage("try a recursive descent instead"),
      reply("rewrote it as recursive descent"),
    ]);
    Object.assign(entries, { u1, a1, u2, a2 });
    assert.equal((await api("POST", `/v1/sessions/${ids.a1}/branches`, { fromId: a1 })).status, 200);
    const [u3, a3] = await append(ids.a1, [
      userMessage("no: fix the regex instead"),
      reply("fixed the regex"),
    ]);
    Object.assign(entries, { u3, a3 });
    ids.a2 = (await api("POST", "/v1/sessions", { cwd: "/work/garden", name: "Herb garden" })).json.id;
    [entries.p1 = ""] = await append(ids.a2, [userMessage("plant parsley beside the basil"), reply("noted")]);
    // Bob: a session Alice must never see, not even its id.
    ids.b1 = (
      await api("POST", "/v1/sessions", { cwd: "/work/bob", name: "Bob private plans" }, keyB)
    ).json.id;
    const bob = await api(
      "POST",
      `/v1/sessions/${ids.b1}/entries`,
      { entries: [userMessage("zebra-secret parsley launch codes")] },
      keyB,
    );
    assert.equal(bob.status, 200);
    entries.b1 = bob.json.appended[0];

    browser = await launchBrowser();
    page = await browser.newPage();
    page.on("requestfinished", (request) => {
      const recorded = record(request);
      pending.add(recorded);
      void recorded.finally(() => pending.delete(recorded));
    });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Logs a request in the order it finished; its headers and answer are filled in as they come. */
  async function record(request: Request): Promise<void> {
    const entry: Logged = {
      method: request.method(),
      url: request.url(),
      headers: {},
      body: request.postData() ?? "",
      status: 0,
      responseHeaders: {},
      responseBody: "",
    };
    log.push(entry);
    const response = await request.response();
    entry.headers = await request.allHeaders();
    entry.status = response?.status() ?? 0;
    entry.responseHeaders = (await response?.allHeaders()) ?? {};
    entry.responseBody = (await response?.text().catch(() => "")) ?? "";
  }

  /** The log once every request so far is recorded whole. */
  async function settled(): Promise<Logged[]> {
    while (pending.size > 0) await Promise.all([...pending]);
    return log;
  }

  /** The API requests A's page made (the page itself excluded), from `from` on. */
  const apiCalls = async (from = 0) =>
    (await settled()).slice(from).filter((l) => new URL(l.url).pathname.startsWith("/v1/"));
  /**
   * The writes A's page made from `from` on, once at least `expected` are logged: Chromium reports a
   * request finished a little after the page has shown its answer, so the log may lag the page.
   */
  async function writes(from: number, expected = 1): Promise<Logged[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const found = (await apiCalls(from)).filter((l) => l.method !== "GET");
      if (found.length >= expected || Date.now() > deadline) return found;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function openSession(id: string): Promise<void> {
    await page.click(`.session-item[data-key="${id}"]`);
    await page.waitForFunction((key) => {
      const v = (window as unknown as { __viewer: { sessionKey(): string | null } }).__viewer;
      return (
        v.sessionKey() === key && document.getElementById("context")?.getAttribute("aria-busy") === "false"
      );
    }, id);
  }

  async function select(id: string): Promise<void> {
    await clickNode(page, id);
    await waitForContext(page, id);
  }

  async function actionStatus(pattern: RegExp): Promise<string> {
    await page.waitForFunction(
      (source) => new RegExp(source).test(document.getElementById("act-status")?.textContent ?? ""),
      pattern.source,
    );
    return (await page.textContent("#act-status")) ?? "";
  }

  it("serves the page to anyone, with the viewer's security headers, and asks for a credential", async () => {
    const res = await fetch(`${server.url}/`);
    assert.equal(res.status, 200);
    const csp = res.headers.get("content-security-policy") ?? "";
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /connect-src 'self'/);
    assert.match(csp, /script-src 'sha256-/);
    assert.equal(res.headers.get("x-frame-options"), "DENY");
    assert.equal(res.headers.get("cache-control"), "no-store");
    const html = await res.text();
    assert.ok(!html.includes(ids.a1) && !html.includes("Fix the list parser"), "the page holds no data");

    await page.goto(`${server.url}/`);
    await page.waitForSelector("#signin:not([hidden])");
    assert.equal(await page.locator(".session-item").count(), 0);
    assert.equal((await apiCalls()).length, 0, "nothing asked of the API before signing in");
    await page.fill("#credential", "st_000000000000_wrong");
    await page.click("#signin-button");
    await page.waitForFunction(() =>
      /Not accepted/.test(document.getElementById("signin-message")?.textContent ?? ""),
    );
  });

  it("signs A in: the key kept in sessionStorage only, A's sessions listed and nobody else's", async () => {
    const mark = log.length;
    await page.fill("#credential", keyA);
    await page.press("#credential", "Enter");
    await page.waitForSelector("#signin[hidden]", { state: "attached" });
    await waitReady(page);
    const listed = await page.$$eval(".session-item", (els) => els.map((e) => e.getAttribute("data-key")));
    assert.deepEqual(listed.sort(), [ids.a1, ids.a2].sort());
    const stored = await page.evaluate(() => ({
      session: sessionStorage.getItem("sessiontree.credential"),
      local: localStorage.length,
      cookie: document.cookie,
      href: location.href,
    }));
    assert.equal(stored.session, keyA);
    assert.equal(stored.local, 0);
    assert.equal(stored.cookie, "");
    assert.equal((await browser.context.cookies()).length, 0);
    for (const l of await settled()) assert.ok(!l.url.includes(keyA), `the key is in a URL: ${l.url}`);
    assert.ok((await apiCalls(mark)).length >= 2);
    for (const l of await apiCalls(mark)) assert.equal(l.headers.authorization, `Bearer ${keyA}`, l.url);
    assert.ok(!stored.href.includes(keyA));
  });

  it("navigates: opens a session, selects an entry, shows the context the API builds there", async () => {
    await openSession(ids.a1);
    assert.equal(await page.textContent("#session-title"), "Fix the list parser");
    await select(entries.u2 as string);
    const expected = (await api("GET", `/v1/sessions/${ids.a1}/context?leafId=${entries.u2}`)).json;
    assert.deepEqual(await contextEntryIds(page), expected.messageEntryIds);
    assert.match((await page.textContent("#entry-badges")) ?? "", /abandoned branch/);
    await screenshot(page, "service");
  });

  it("checks out an entry with PUT …/leaf and If-Match, and the revision moves", async () => {
    const before = await summary(ids.a1);
    const mark = log.length;
    await select(entries.u2 as string);
    await page.click("#act-checkout");
    assert.match(await actionStatus(/Checked out/), /leaf is here/);
    const [put] = await writes(mark);
    assert.ok(put, "a write was made");
    assert.equal(put.method, "PUT");
    assert.ok(put.url.endsWith(`/v1/sessions/${ids.a1}/leaf`), put.url);
    assert.equal(put.headers["if-match"], `"${before.revision}"`);
    assert.deepEqual(JSON.parse(put.body), { leafId: entries.u2 });
    const now = await summary(ids.a1);
    assert.ok(now.revision > before.revision);
    assert.equal(now.leafId, entries.u2);
    assert.equal(put.responseHeaders.etag, `"${now.revision}"`);
    await waitForContext(page, entries.u2 as string);
    assert.match((await page.textContent("#entry-badges")) ?? "", /current leaf/);
  });

  it("labels an entry with POST …/labels and If-Match", async () => {
    const before = await summary(ids.a1);
    const mark = log.length;
    await select(entries.a1 as string);
    await page.fill("#act-label-text", "turning point");
    await page.click("#act-label");
    await actionStatus(/Labelled/);
    const [post] = await writes(mark);
    assert.ok(post?.url.endsWith(`/v1/sessions/${ids.a1}/labels`), post?.url);
    assert.equal(post?.headers["if-match"], `"${before.revision}"`);
    assert.ok((await summary(ids.a1)).revision > before.revision);
    const labels = (await api("GET", `/v1/sessions/${ids.a1}/labels`)).json.labels;
    assert.equal(labels[entries.a1 as string], "turning point");
    await waitForContext(page, entries.a1 as string);
    assert.match((await page.textContent("#entry-badges")) ?? "", /label: turning point/);
  });

  it("forks the path root → entry into a new session: its appends name its revision", async () => {
    const mark = log.length;
    await select(entries.a3 as string);
    await page.click("#act-fork");
    const status = await actionStatus(/Forked/);
    const forkId = /new session, (\S+)\./.exec(status)?.[1] as string;
    await page.waitForFunction(
      (key) =>
        (window as unknown as { __viewer: { sessionKey(): string | null } }).__viewer.sessionKey() === key,
      forkId,
    );
    const forked = await summary(forkId);
    assert.equal(forked.parentSession, ids.a1);
    const path = (await api("GET", `/v1/sessions/${ids.a1}/branch?leafId=${entries.a3}`)).json.entries;
    const copied = (await api("GET", `/v1/sessions/${forkId}/branch`)).json.entries;
    assert.deepEqual(
      copied.map((e: SessionEntry) => e.id),
      path.map((e: SessionEntry) => e.id),
    );
    const [create, ...appends] = await writes(mark, 2);
    assert.equal(create?.method, "POST");
    assert.ok(create.url.endsWith("/v1/sessions"));
    assert.ok(appends.length > 0);
    let revision = JSON.parse(create.responseBody).revision;
    for (const write of appends) {
      assert.ok(write.url.endsWith(`/v1/sessions/${forkId}/entries`), write.url);
      assert.equal(write.headers["if-match"], `"${revision}"`);
      revision = JSON.parse(write.responseBody).revision;
    }
    assert.equal(forked.revision, revision);
    const listed = await page.$$eval(".session-item", (els) => els.map((e) => e.getAttribute("data-key")));
    assert.deepEqual(listed.sort(), [ids.a1, ids.a2, forkId].sort());
  });

  it("exports the open session: the API's pi JSONL, downloaded from the page", async () => {
    await openSession(ids.a1);
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export")]);
    const path = await download.path();
    const expected = (await api("GET", `/v1/sessions/${ids.a1}/export`)).text;
    assert.equal(readFileSync(path, "utf8"), expected);
    assert.equal(download.suggestedFilename(), `${ids.a1}.jsonl`);
  });

  it("a stale If-Match (another writer moved the session) says so and reloads, overwriting nothing", async () => {
    await openSession(ids.a1);
    await select(entries.u1 as string);
    const shown = (await summary(ids.a1)).revision;
    // Another writer (a second tab, an agent) appends meanwhile: the leaf moves to its entry.
    const [late] = await append(ids.a1, [userMessage("a message written elsewhere")]);
    const moved = await summary(ids.a1);
    const mark = log.length;
    await page.click("#act-checkout");
    const status = await actionStatus(/changed since it was shown/);
    assert.match(status, /nothing was overwritten/);
    const [put] = await writes(mark);
    assert.equal(put?.headers["if-match"], `"${shown}"`);
    assert.equal(put.status, 412);
    const after = await summary(ids.a1);
    assert.equal(after.revision, moved.revision);
    assert.equal(after.leafId, late);
    // Read again: the other writer's entry is in the tree now, the selection kept.
    await page.waitForFunction(
      (id) => (window as unknown as { __viewer: { rowOf(id: string): number } }).__viewer.rowOf(id) >= 0,
      late as string,
    );
    assert.equal(await hook(page, "selectedId"), entries.u1);
  });

  it("finds text across A's sessions and opens a hit at its entry; B's text is never found", async () => {
    await page.fill("#find", "parsley");
    await page.press("#find", "Enter");
    await page.waitForSelector(".find-hit");
    const hits = await page.$$eval(".find-hit", (els) =>
      els.map((e) => [e.getAttribute("data-key"), e.getAttribute("data-entry-id"), e.textContent]),
    );
    assert.deepEqual(
      hits.map(([key, entry]) => [key, entry]),
      [[ids.a2, entries.p1]],
    );
    assert.match(hits[0]?.[2] ?? "", /parsley/);
    assert.equal(await page.locator(".find-hit mark").first().textContent(), "parsley");
    await page.click(".find-hit");
    await page.waitForFunction(
      (key) =>
        (window as unknown as { __viewer: { sessionKey(): string | null } }).__viewer.sessionKey() === key,
      ids.a2,
    );
    await waitForContext(page, entries.p1 as string);
    assert.equal(await hook(page, "selectedId"), entries.p1);
    await page.fill("#find", "zebra-secret");
    await page.press("#find", "Enter");
    await page.waitForSelector(".find-note:text('No entry holds')");
  });

  it("B's session answers like a missing one, by address or from the console; the log never holds B's data", async () => {
    const beforeGuess = log.length;
    const missing = "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee";
    const titleFor = async (id: string) => {
      await page.evaluate((key) => {
        location.hash = `session=${encodeURIComponent(key)}`;
      }, id);
      await page.waitForFunction(() =>
        /Could not open/.test(document.getElementById("session-title")?.textContent ?? ""),
      );
      const title = await page.textContent("#session-title");
      await page.evaluate(() => {
        const title = document.getElementById("session-title");
        if (title) title.textContent = "";
      });
      return title;
    };
    assert.equal(await titleFor(ids.b1), await titleFor(missing));
    const fromConsole = await page.evaluate(
      async (targets) => {
        const credential = sessionStorage.getItem("sessiontree.credential") as string;
        const out: Array<[number, string]> = [];
        for (const path of targets) {
          const res = await fetch(path, { headers: { Authorization: `Bearer ${credential}` } });
          out.push([res.status, await res.text()]);
        }
        return out;
      },
      [
        `v1/sessions/${ids.b1}`,
        `v1/sessions/${missing}`,
        `v1/sessions/${ids.b1}/entries`,
        `v1/sessions/${missing}/entries`,
      ],
    );
    assert.equal(fromConsole[0]?.[0], 404);
    assert.deepEqual(fromConsole[0], fromConsole[1]);
    assert.deepEqual(fromConsole[2], fromConsole[3]);
    // Nothing A's page was sent holds B's id (but the guesses it made) or B's text.
    for (const l of await settled()) {
      assert.ok(!l.responseBody.includes("zebra-secret"), `B's text in ${l.url}`);
      assert.ok(!l.responseBody.includes("Bob private"), `B's name in ${l.url}`);
      assert.ok(!l.responseBody.includes(entries.b1 as string), `B's entry id in ${l.url}`);
    }
    for (const l of log.slice(0, beforeGuess)) {
      assert.ok(!l.url.includes(ids.b1) && !l.responseBody.includes(ids.b1), `B's id in ${l.url}`);
    }
    const shown = await page.evaluate(() => document.body.textContent ?? "");
    assert.ok(!shown.includes("Bob private") && !shown.includes("zebra"));
  });

  it("a refused credential (revoked meanwhile) returns to sign-in and forgets it", async () => {
    const second = await server.key("alice");
    const other = await browser.newPage();
    await other.goto(`${server.url}/`);
    await other.fill("#credential", second);
    await other.click("#signin-button");
    await waitReady(other);
    const keyId = /^st_([0-9a-f]+)_/.exec(second)?.[1] as string;
    assert.equal((await api("DELETE", `/v1/keys/${keyId}`)).status, 204);
    await other.click("#reload");
    await other.waitForSelector("#signin:not([hidden])");
    assert.match((await other.textContent("#signin-message")) ?? "", /Signed out/);
    assert.equal(await other.evaluate(() => sessionStorage.getItem("sessiontree.credential")), null);
    await other.close();
  });

  it("signs in with a JWT the same way (Bearer), as its subject", async () => {
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("carol")
      .setExpirationTime("10m")
      .sign(new TextEncoder().encode(JWT_SECRET));
    const made = await server.call("POST", "/v1/sessions", {
      key: token,
      body: { cwd: "/c", name: "Carol's notes" },
    });
    assert.equal(made.status, 201);
    const other = await browser.newPage();
    await other.goto(`${server.url}/`);
    await other.fill("#credential", token);
    await other.click("#signin-button");
    await waitReady(other);
    const listed = await other.$$eval(".session-item", (els) => els.map((e) => e.getAttribute("data-key")));
    assert.deepEqual(listed, [made.json.id]);
    await other.close();
  });

  it("signs out: the credential is gone and the sign-in form is back", async () => {
    await page.click("#sign-out");
    await page.waitForSelector("#signin:not([hidden])");
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    assert.equal(await page.evaluate(() => location.hash), "");
    assert.deepEqual(
      browser.errors.filter((e) => !/status of 40[1-4]|412/.test(e)),
      [],
    );
  });
});
