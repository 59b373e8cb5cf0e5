import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createApiKey, createServer } from "../../src/server/index.js";
import { SqliteStore } from "../../src/store/sqlite/index.js";
import type { SessionStore } from "../../src/store/store.js";
import { BACKENDS, call, startTestServer, type TestServer, userMessage } from "./helpers.js";

/**
 * What a write answers and what it writes beside the session (remembered responses, audit rows)
 * are decided inside its transaction: issue 16, defects 3, 5 and 9 (audit).
 */
for (const backend of BACKENDS) {
  describe(`writes answer and record from inside their transaction (${backend})`, () => {
    let t: TestServer;
    let key: string;
    const rows = <T>(sql: string, params: unknown[]) => t.server.services.db.sql.all<T>(sql, params);
    const newSession = async (body: Record<string, unknown> = {}) =>
      (await t.call("POST", "/v1/sessions", { key, body })).json.id as string;
    const append = (id: string, text: string | object, headers: Record<string, string> = {}) => {
      const entry = typeof text === "string" ? userMessage(text) : text;
      return t.call("POST", `/v1/sessions/${id}/entries`, { key, body: { entries: [entry] }, headers });
    };

    before(async () => {
      t = await startTestServer(backend);
      key = await t.key("alice");
    });
    after(() => t.close());

    it("PATCH answers the revision and name its own write produced, under concurrent writers", async () => {
      const id = await newSession();
      const renames = Array.from({ length: 12 }, (_, i) =>
        t.call("PATCH", `/v1/sessions/${id}`, { key, body: { name: `name ${i}` } }),
      );
      const appends = Array.from({ length: 12 }, (_, i) => append(id, `message ${i}`));
      const answers = await Promise.all(renames);
      await Promise.all(appends);
      const entries = (await t.call("GET", `/v1/sessions/${id}/entries`, { key })).json.entries;
      for (const [i, answer] of answers.entries()) {
        assert.equal(answer.status, 200);
        assert.equal(answer.json.name, `name ${i}`, "its own name, not a later rename's");
        // Each write appends one entry and makes one revision: creation is 1, the n-th entry n + 1.
        const position = entries.findIndex((e: { type: string; name?: string }) => e.name === `name ${i}`);
        assert.equal(answer.json.revision, position + 2, `rename ${i} answers the revision it made`);
        assert.equal(answer.headers.get("etag"), `"${position + 2}"`);
      }
    });

    it("applies concurrent requests with one Idempotency-Key once, and answers them all alike", async () => {
      const id = await newSession();
      const headers = { "idempotency-key": `same-${id}` };
      const body = { entries: [userMessage("once")] };
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => t.call("POST", `/v1/sessions/${id}/entries`, { key, body, headers })),
      );
      for (const answer of answers) {
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.text, (answers[0] as typeof answer).text);
      }
      const entries = (await t.call("GET", `/v1/sessions/${id}/entries`, { key })).json.entries;
      assert.equal(entries.length, 1, "the entry (with a server-drawn id) was stored once");
    });

    it("does not replay a response about a session in the trash or purged, and a purge forgets them", async () => {
      const marker = `purged-marker-${Date.now()}`;
      const createKey = { "idempotency-key": `create-${marker}` };
      const created = await t.call("POST", "/v1/sessions", {
        key,
        body: { name: marker },
        headers: createKey,
      });
      const id = created.json.id as string;
      const appendKey = { "idempotency-key": `append-${marker}` };
      const message = userMessage(marker);
      assert.equal((await append(id, message, appendKey)).status, 200);
      const stored = () =>
        rows<{ n: number | string }>(
          "SELECT count(*) AS n FROM idempotency_keys WHERE owner = $1 AND session_id = $2",
          ["alice", id],
        );
      assert.equal(Number((await stored())[0]?.n), 2);

      assert.equal((await t.call("DELETE", `/v1/sessions/${id}`, { key })).status, 200);
      const inTrash = await append(id, message, appendKey);
      assert.deepEqual([inTrash.status, inTrash.json.code], [404, "session_not_found"]);
      assert.equal((await t.call("POST", `/v1/sessions/${id}/restore`, { key })).status, 200);
      assert.equal((await append(id, message, appendKey)).status, 200, "restored: the answer replays again");

      assert.equal((await t.call("POST", `/v1/sessions/${id}/purge`, { key })).status, 204);
      assert.equal(Number((await stored())[0]?.n), 0, "the purge forgot every response about it");
      const leftovers = await rows<{ body: string }>("SELECT body FROM idempotency_keys WHERE owner = $1", [
        "alice",
      ]);
      assert.ok(!leftovers.some((row) => row.body.includes(marker)), "no stored response names the session");
      const afterPurge = await append(id, message, appendKey);
      assert.deepEqual([afterPurge.status, afterPurge.json.code], [404, "session_not_found"]);
      const recreated = await t.call("POST", "/v1/sessions", {
        key,
        body: { name: marker },
        headers: createKey,
      });
      assert.equal(recreated.status, 201);
      assert.notEqual(recreated.json.id, id, "the key runs anew: its session is gone");
    });

    it("audits only changes: a repeated delete and a no-op restore add no rows", async () => {
      const id = await newSession();
      for (const [method, path] of [
        ["DELETE", ""],
        ["DELETE", ""],
        ["POST", "/restore"],
        ["POST", "/restore"],
      ] as const) {
        assert.equal((await t.call(method, `/v1/sessions/${id}${path}`, { key })).status, 200);
      }
      const log = (await t.call("GET", "/v1/deletions", { key })).json.items.filter(
        (row: { sessionId: string }) => row.sessionId === id,
      );
      assert.deepEqual(
        log.map((row: { action: string }) => row.action),
        ["restore", "delete"],
      );
    });

    it("writes the audit row in the transaction of the change: no audit, no delete", async () => {
      const broken = await startTestServer(backend);
      try {
        const brokenKey = await broken.key("carol");
        const id = (await broken.call("POST", "/v1/sessions", { key: brokenKey, body: {} })).json.id;
        await broken.server.services.db.sql.run(
          "ALTER TABLE deletion_audit RENAME TO deletion_audit_gone",
          [],
        );
        const deleted = await broken.call("DELETE", `/v1/sessions/${id}`, { key: brokenKey });
        assert.equal(deleted.status, 500);
        const still = await broken.call("GET", `/v1/sessions/${id}`, { key: brokenKey });
        assert.equal(still.status, 200, "the delete was undone with its audit row");
        assert.equal(still.json.deletedAt, null);
      } finally {
        await broken.close();
      }
    });
  });
}

describe("a write answers its own revision even when the store is slow to read (sqlite, store passed in)", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "st-own-revision-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("PATCH does not report a revision read after the next write", async () => {
    const inner = new SqliteStore({ path: join(dir, "store.db") });
    await inner.init();
    // Summaries are read late: a reply built from a read after the write sees the next write too.
    let slow = false;
    const store = new Proxy(inner, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (property !== "getSummary" || typeof value !== "function") {
          return typeof value === "function" ? value.bind(target) : value;
        }
        return async (...args: Parameters<SessionStore["getSummary"]>) => {
          if (slow) await new Promise((resolve) => setTimeout(resolve, 150));
          return target.getSummary(...args);
        };
      },
    });
    const server = await createServer({ store, data: dir, port: 0, rateLimit: false });
    try {
      const { url } = await server.listen();
      const key = (await createApiKey(server.services.db, "dave", "t")).key;
      const id = (await call(url, "POST", "/v1/sessions", { key, body: {} })).json.id;
      slow = true;
      const renamed = call(url, "PATCH", `/v1/sessions/${id}`, { key, body: { name: "mine" } });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const appended = await call(url, "POST", `/v1/sessions/${id}/entries`, {
        key,
        body: { entries: [userMessage("after the rename")] },
      });
      assert.equal(appended.json.revision, 3);
      const answer = await renamed;
      assert.equal(answer.json.revision, 2, "the rename's own revision");
      assert.equal(answer.json.entryCount, 1, "and its own summary");
    } finally {
      await server.close();
      await inner.close();
    }
  });
});
