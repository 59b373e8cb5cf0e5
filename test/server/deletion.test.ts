import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { SessionTreeApiError, SessionTreeClient } from "../../src/client/index.js";
import { purgeExpiredSessions } from "../../src/server/index.js";
import { BACKENDS, startTestServer, type TestServer, userMessage } from "./helpers.js";

const DAY = 86_400_000;

async function expectCode(promise: Promise<unknown>, status: number, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof SessionTreeApiError);
    assert.equal(error.status, status);
    assert.equal(error.code, code);
    return true;
  });
}

for (const backend of BACKENDS) {
  describe(`deletion policy (${backend})`, () => {
    let t: TestServer;
    let client: SessionTreeClient;
    let keyId: string;

    before(async () => {
      t = await startTestServer(backend);
      const key = await t.key("alice");
      keyId = key.split("_")[1] as string;
      client = new SessionTreeClient({ baseUrl: t.url, token: key });
    });
    after(() => t.close());

    it("soft delete hides a session, restore brings it back whole", async () => {
      const s = await client.createSession({ name: "keep me" });
      await client.append(s.id, [userMessage("hello")]);
      const deleted = await client.deleteSession(s.id);
      await expectCode(client.getSession(s.id), 404, "session_not_found");
      await expectCode(client.getContext(s.id), 404, "session_not_found");
      assert.ok(!(await client.listSessions()).items.some((x) => x.id === s.id));
      const trash = await client.listSessions({ state: "deleted" });
      assert.ok(trash.items.some((x) => x.id === s.id && x.deletedAt !== null));
      const shown = await client.getSession(s.id, { includeDeleted: true });
      assert.equal(shown.revision, deleted.revision);
      await client.restoreSession(s.id);
      const back = await client.getSession(s.id);
      assert.equal(back.deletedAt, null);
      assert.equal(back.entryCount, 1);
      assert.equal((await client.getContext(s.id)).messages.length, 1);
    });

    it("hard purge on request removes a session for good, deleted or not", async () => {
      const live = await client.createSession();
      await client.purgeSession(live.id);
      await expectCode(client.getSession(live.id, { includeDeleted: true }), 404, "session_not_found");
      await expectCode(client.restoreSession(live.id), 404, "session_not_found");
      await expectCode(client.purgeSession(live.id), 404, "session_not_found");
    });

    it("retention purges only sessions soft-deleted longer ago than the period", async () => {
      const old = await client.createSession({ name: "old" });
      const recent = await client.createSession({ name: "recent" });
      const kept = await client.createSession({ name: "never deleted" });
      await client.deleteSession(old.id);
      await client.deleteSession(recent.id);
      const { store, db } = t.server.services;
      // Nothing is old enough yet.
      assert.deepEqual(await purgeExpiredSessions(store, db, 30), []);
      // 31 days later the deleted ones are due; the live one never is.
      const later = new Date(Date.now() + 31 * DAY);
      const purged = (await purgeExpiredSessions(store, db, 30, later)).map((p) => p.sessionId).sort();
      assert.deepEqual(purged, [old.id, recent.id].sort());
      await expectCode(client.getSession(old.id, { includeDeleted: true }), 404, "session_not_found");
      assert.equal((await client.getSession(kept.id)).name, "never deleted");
    });

    it("keeps an audit log of who deleted, restored and purged what, when and how", async () => {
      const s = await client.createSession();
      await client.deleteSession(s.id);
      await client.restoreSession(s.id);
      await client.purgeSession(s.id);
      const mine = (await client.listDeletions()).items.filter((r) => r.sessionId === s.id);
      assert.deepEqual(
        mine.map((r) => [r.action, r.actor, r.via]),
        [
          ["purge", `key:${keyId}`, "api"],
          ["restore", `key:${keyId}`, "api"],
          ["delete", `key:${keyId}`, "api"],
        ],
      );
      assert.ok(mine.every((r) => !Number.isNaN(Date.parse(r.at))));
      const retention = (await client.listDeletions()).items.filter((r) => r.action === "retention_purge");
      assert.equal(retention.length, 2);
      assert.ok(retention.every((r) => r.actor === "system" && r.via === "retention"));
    });

    it("deletes with If-Match only at the current revision", async () => {
      const s = await client.createSession();
      await expectCode(client.deleteSession(s.id, { ifMatch: s.revision + 5 }), 412, "conflict");
      const done = await client.deleteSession(s.id, { ifMatch: s.revision });
      assert.ok(done.revision > s.revision);
    });
  });
}

describe("retention timer", () => {
  it("purges soft-deleted sessions on its own when --retention-days is set", async () => {
    const t = await startTestServer("sqlite", { retentionDays: 0, retentionIntervalMs: 50 });
    try {
      const client = new SessionTreeClient({ baseUrl: t.url, token: await t.key("alice") });
      const doomed = await client.createSession();
      const live = await client.createSession();
      await client.deleteSession(doomed.id);
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        const trash = await client.listSessions({ state: "deleted" });
        if (trash.items.length === 0) break;
        await sleep(50);
      }
      await expectCode(client.getSession(doomed.id, { includeDeleted: true }), 404, "session_not_found");
      assert.equal((await client.getSession(live.id)).id, live.id);
    } finally {
      await t.close();
    }
  });

  it("deletes nothing by default", async () => {
    const t = await startTestServer("sqlite", { retentionIntervalMs: 20 });
    try {
      const client = new SessionTreeClient({ baseUrl: t.url, token: await t.key("alice") });
      const s = await client.createSession();
      await client.deleteSession(s.id);
      await sleep(200);
      assert.equal((await client.listSessions({ state: "deleted" })).items.length, 1);
      await assert.rejects(t.server.purgeExpired(), RangeError);
    } finally {
      await t.close();
    }
  });
});
