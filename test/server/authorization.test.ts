import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { apiRoutes } from "../../src/server/app.js";
import { BACKENDS, type CallOptions, startTestServer, type TestServer, userMessage } from "./helpers.js";

/** A request for every route: `:id` is the session, `:keyId` a key of the caller's. */
interface Probe {
  method: string;
  path: (sessionId: string, keyId: string) => string;
  options?: CallOptions;
  /** Addresses one session: another user must get exactly the "missing session" answer. */
  session: boolean;
}

const PROBES: Record<string, Probe> = {
  createSession: {
    method: "POST",
    path: () => "/v1/sessions",
    options: { body: { cwd: "/x" } },
    session: false,
  },
  listSessions: { method: "GET", path: () => "/v1/sessions", session: false },
  importSession: {
    method: "POST",
    path: () => "/v1/sessions/import",
    options: {
      raw: '{"type":"session","version":3,"id":"x1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n',
    },
    session: false,
  },
  getSession: { method: "GET", path: (s) => `/v1/sessions/${s}`, session: true },
  renameSession: {
    method: "PATCH",
    path: (s) => `/v1/sessions/${s}`,
    options: { body: { name: "n" } },
    session: true,
  },
  deleteSession: { method: "DELETE", path: (s) => `/v1/sessions/${s}`, session: true },
  restoreSession: { method: "POST", path: (s) => `/v1/sessions/${s}/restore`, session: true },
  purgeSession: { method: "POST", path: (s) => `/v1/sessions/${s}/purge`, session: true },
  appendEntries: {
    method: "POST",
    path: (s) => `/v1/sessions/${s}/entries`,
    options: { body: { entries: [userMessage("intruder")] } },
    session: true,
  },
  readEntries: { method: "GET", path: (s) => `/v1/sessions/${s}/entries`, session: true },
  readBranch: { method: "GET", path: (s) => `/v1/sessions/${s}/branch`, session: true },
  setLeaf: {
    method: "PUT",
    path: (s) => `/v1/sessions/${s}/leaf`,
    options: { body: { leafId: null } },
    session: true,
  },
  branchSession: {
    method: "POST",
    path: (s) => `/v1/sessions/${s}/branches`,
    options: { body: { fromId: null, summary: "x" } },
    session: true,
  },
  getLabels: { method: "GET", path: (s) => `/v1/sessions/${s}/labels`, session: true },
  setLabel: {
    method: "POST",
    path: (s) => `/v1/sessions/${s}/labels`,
    options: { body: { targetId: "e1", label: "x" } },
    session: true,
  },
  getContext: { method: "GET", path: (s) => `/v1/sessions/${s}/context`, session: true },
  getTree: { method: "GET", path: (s) => `/v1/sessions/${s}/tree`, session: true },
  exportSession: { method: "GET", path: (s) => `/v1/sessions/${s}/export`, session: true },
  listKeys: { method: "GET", path: () => "/v1/keys", session: false },
  createKey: { method: "POST", path: () => "/v1/keys", options: { body: {} }, session: false },
  revokeKey: { method: "DELETE", path: (_s, k) => `/v1/keys/${k}`, session: false },
  listDeletions: { method: "GET", path: () => "/v1/deletions", session: false },
  getSessionStats: { method: "GET", path: (s) => `/v1/sessions/${s}/stats`, session: true },
  getStats: { method: "GET", path: () => "/v1/stats", session: false },
  search: { method: "GET", path: () => "/v1/search?q=private", session: false },
  syncState: {
    method: "POST",
    path: () => "/v1/sync/state",
    options: { body: { digest: "" } },
    session: false,
  },
  // A sync PUT names its own session id: another user's id makes the caller's own session (below).
  putSyncSession: {
    method: "PUT",
    path: (s) => `/v1/sync/sessions/${s}`,
    options: { body: { timestamp: "2026-01-01T00:00:00.000Z", cwd: "/b" } },
    session: false,
  },
  syncAppendEntries: {
    method: "POST",
    path: (s) => `/v1/sync/sessions/${s}/entries`,
    options: {
      body: {
        entries: [
          { ...userMessage("intruder"), id: "x9", parentId: null, timestamp: "2026-01-01T00:00:00.000Z" },
        ],
      },
    },
    session: true,
  },
};

const MISSING = "01900000-0000-7000-8000-000000000000";

for (const backend of BACKENDS) {
  describe(`authorization matrix (${backend})`, () => {
    let t: TestServer;
    let alice: string;
    let bob: string;
    let revoked: string;
    let sessionId: string;
    let aliceKeyId: string;

    before(async () => {
      t = await startTestServer(backend);
      alice = await t.key("alice");
      bob = await t.key("bob");
      revoked = await t.key("alice");
      const created = await t.call("POST", "/v1/sessions", {
        key: alice,
        body: { cwd: "/a", name: "secret" },
      });
      sessionId = created.json.id;
      const entry = {
        ...userMessage("private"),
        id: "e1",
        parentId: null,
        timestamp: new Date().toISOString(),
      };
      assert.equal(
        (
          await t.call("POST", `/v1/sessions/${sessionId}/entries`, {
            key: alice,
            body: { entries: [entry] },
          })
        ).status,
        200,
      );
      aliceKeyId = (await t.call("GET", "/v1/keys", { key: alice })).json.items[0].id;
      const revokedId = revoked.split("_")[1];
      assert.equal((await t.call("DELETE", `/v1/keys/${revokedId}`, { key: alice })).status, 204);
    });
    after(() => t.close());

    it("has a probe for every authenticated route, and only for those", () => {
      const routes = apiRoutes()
        .filter((r) => !r.public)
        .map((r) => r.operationId);
      assert.deepEqual(Object.keys(PROBES).sort(), routes.sort());
    });

    for (const [operationId, probe] of Object.entries(PROBES)) {
      it(`${operationId}: no key, a garbage key and a revoked key get 401`, async () => {
        const path = probe.path(sessionId, aliceKeyId);
        for (const key of [
          null,
          "st_000000000000_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
          "nonsense",
          revoked,
        ]) {
          const r = await t.call(probe.method, path, { ...probe.options, key });
          assert.equal(r.status, 401, `${operationId} with ${key}`);
          assert.equal(r.json.code, "unauthorized");
        }
      });

      if (probe.session) {
        it(`${operationId}: another user's session answers exactly like a missing one`, async () => {
          const foreign = await t.call(probe.method, probe.path(sessionId, ""), {
            ...probe.options,
            key: bob,
          });
          const missing = await t.call(probe.method, probe.path(MISSING, ""), { ...probe.options, key: bob });
          assert.equal(foreign.status, 404);
          assert.equal(foreign.text, missing.text);
          assert.deepEqual(foreign.json, { code: "session_not_found", message: "Session not found" });
          assert.equal(foreign.headers.get("etag"), null);
        });
      }
    }

    it("left alice's session untouched by every foreign attempt", async () => {
      const r = await t.call("GET", `/v1/sessions/${sessionId}`, { key: alice });
      assert.equal(r.status, 200);
      assert.equal(r.json.revision, 2);
      assert.equal(r.json.name, "secret");
      assert.equal(r.json.entryCount, 1);
      assert.equal(r.json.deletedAt, null);
    });

    it("scopes lists, keys and the audit log to the caller", async () => {
      const list = await t.call("GET", "/v1/sessions?state=all", { key: bob });
      assert.ok(list.json.items.every((s: { id: string }) => s.id !== sessionId));
      const search = await t.call("GET", "/v1/sessions?search=private&state=all", { key: bob });
      assert.deepEqual(search.json.items, []);
      const found = await t.call("GET", "/v1/search?q=private", { key: bob });
      assert.equal(found.status, 200);
      assert.deepEqual(found.json.hits, []);
      const stats = await t.call("GET", "/v1/stats", { key: bob });
      assert.equal(stats.status, 200);
      assert.ok(!stats.text.includes(sessionId), "no trace of alice's session in bob's stats");
      const keys = await t.call("GET", "/v1/keys", { key: bob });
      assert.ok(keys.json.items.every((k: { id: string }) => k.id !== aliceKeyId));
      const revoke = await t.call("DELETE", `/v1/keys/${aliceKeyId}`, { key: bob });
      assert.equal(revoke.status, 404);
      assert.equal((await t.call("GET", "/v1/keys", { key: alice })).status, 200);
    });

    it("a sync PUT of another user's session id makes the caller's own session, as for a new id", async () => {
      const header = { timestamp: "2026-01-01T00:00:00.000Z", cwd: "/b" };
      const theirs = await t.call("PUT", `/v1/sync/sessions/${sessionId}`, { key: bob, body: header });
      const fresh = await t.call("PUT", "/v1/sync/sessions/01900000-0000-7000-8000-00000000abcd", {
        key: bob,
        body: header,
      });
      assert.equal(theirs.status, 201);
      assert.equal(fresh.status, 201);
      assert.deepEqual({ ...theirs.json, header: null }, { ...fresh.json, header: null });
      const alices = await t.call("GET", `/v1/sessions/${sessionId}`, { key: alice });
      assert.equal(alices.json.revision, 2);
      assert.equal(alices.json.cwd, "/a");
      await t.call("DELETE", `/v1/sessions/${sessionId}`, { key: bob });
      await t.call("POST", `/v1/sessions/${sessionId}/purge`, { key: bob });
    });

    it("refuses a key revoked mid-session at once: history grants nothing", async () => {
      const key = await t.key("carol");
      const created = await t.call("POST", "/v1/sessions", { key, body: {} });
      const id = created.json.id;
      assert.equal(
        (await t.call("POST", `/v1/sessions/${id}/entries`, { key, body: { entries: [userMessage("a")] } }))
          .status,
        200,
      );
      assert.equal((await t.call("DELETE", `/v1/keys/${key.split("_")[1]}`, { key })).status, 204);
      const again = await t.call("POST", `/v1/sessions/${id}/entries`, {
        key,
        body: { entries: [userMessage("b")] },
      });
      assert.equal(again.status, 401);
      assert.equal((await t.call("GET", `/v1/sessions/${id}`, { key })).status, 401);
    });

    it("gives sessions unguessable UUID v7 ids, whatever an import file says", async () => {
      const created = await t.call("POST", "/v1/sessions", { key: bob, body: {} });
      assert.match(created.json.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const header = {
        type: "session",
        version: 3,
        id: sessionId,
        timestamp: new Date().toISOString(),
        cwd: "/",
      };
      const imported = await t.call("POST", "/v1/sessions/import", {
        key: bob,
        raw: `${JSON.stringify(header)}\n`,
      });
      assert.equal(imported.status, 201);
      assert.notEqual(imported.json.id, sessionId);
      assert.equal((await t.call("GET", `/v1/sessions/${sessionId}`, { key: alice })).json.name, "secret");
    });
  });
}
