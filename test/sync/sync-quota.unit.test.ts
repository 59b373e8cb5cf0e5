import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SessionManager } from "../../src/session/session-manager.js";
import { startTestServer, type TestServer } from "../server/helpers.js";
import { messageMaker } from "../support/messages.js";
import { makeSession, syncOnce, tempDir } from "./helpers.js";

const m = messageMaker();

/** The quota part of an error answer: what a client branches on. */
function refusal(answer: { status: number; json: { code?: string; details?: { quota?: string } } }) {
  return { status: answer.status, code: answer.json.code, quota: answer.json.details?.quota };
}

describe("sync counts against the user's quotas (in-process service on SQLite)", () => {
  let server: TestServer;
  let key: string;
  const dirs = tempDir("st-sync-quota-");
  const root = join(dirs.path, "a");
  const state = join(dirs.path, "state");
  let first: { id: string; path: string };

  before(async () => {
    server = await startTestServer("sqlite", { quotas: { maxSessions: 1, maxEntries: 6 } });
    key = await server.key("carol");
    first = makeSession(root, "/work/quota", 2);
    const run = await syncOnce(root, server.url, key, state);
    assert.equal(run.report.errors, 0, JSON.stringify(run.report.changed));
  });
  after(async () => {
    await server.close();
    dirs.cleanup();
  });

  it("a user at the session quota gets the same 403 through sync as through create", async () => {
    const create = await server.call("POST", "/v1/sessions", { key, body: { cwd: "/work/quota" } });
    const put = await server.call("PUT", "/v1/sync/sessions/9a6a8c2e-0000-4000-8000-000000000001", {
      key,
      body: { timestamp: "2026-01-01T00:00:00.000Z", cwd: "/work/quota" },
    });
    assert.deepEqual(refusal(create), { status: 403, code: "quota_exceeded", quota: "sessions" });
    assert.deepEqual(refusal(put), refusal(create));

    // `sessiontree sync` with a new local session: reported as that session's error, nothing made.
    const second = makeSession(root, "/work/quota", 1);
    const run = await syncOnce(root, server.url, key, state);
    const failed = run.report.changed.find((s) => s.id === second.id);
    assert.equal(failed?.error?.code, "quota_exceeded");
    assert.equal(run.report.errors, 1);
    const list = await server.call("GET", "/v1/sessions", { key });
    assert.deepEqual(
      list.json.items.map((s: { id: string }) => s.id),
      [first.id],
    );
  });

  it("entries pushed by sync count against the entry quota", async () => {
    const direct = await server.call("POST", `/v1/sync/sessions/${first.id}/entries`, {
      key,
      body: {
        entries: [1, 2, 3].map((n) => ({
          type: "message",
          id: `q000000${n}`,
          parentId: n === 1 ? null : `q000000${n - 1}`,
          timestamp: "2026-01-01T00:00:00.000Z",
          message: m.user(`over ${n}`),
        })),
      },
    });
    assert.deepEqual(refusal(direct), { status: 403, code: "quota_exceeded", quota: "entries" });
    const more = SessionManager.open(first.path, undefined, undefined, { root });
    for (let i = 0; i < 2; i++) {
      more.appendMessage(m.user(`more ${i}`));
      more.appendMessage(m.assistant(`more answer ${i}`));
    }
    more.close();
    const run = await syncOnce(root, server.url, key, state);
    assert.equal(run.report.changed.find((s) => s.id === first.id)?.error?.code, "quota_exceeded");
    const summary = await server.call("GET", `/v1/sessions/${first.id}`, { key });
    assert.equal(summary.json.entryCount, 4);
  });
});
