import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BACKENDS, startTestServer, type TestServer, userMessage } from "./helpers.js";

function fullEntry(id: string, parentId: string | null, text: string) {
  return { ...userMessage(text), id, parentId, timestamp: "2026-01-01T00:00:00.000Z" };
}

for (const backend of BACKENDS) {
  describe(`conflicts and idempotency (${backend})`, () => {
    let t: TestServer;
    let key: string;
    const newSession = async () =>
      (await t.call("POST", "/v1/sessions", { key, body: {} })).json.id as string;
    const append = (id: string, entries: unknown[], headers: Record<string, string> = {}) =>
      t.call("POST", `/v1/sessions/${id}/entries`, { key, body: { entries }, headers });

    before(async () => {
      t = await startTestServer(backend);
      key = await t.key("alice");
    });
    after(() => t.close());

    it("sends the revision as ETag and answers a stale If-Match with 412 and the current revision", async () => {
      const id = await newSession();
      const first = await append(id, [userMessage("one")], { "if-match": '"1"' });
      assert.equal(first.status, 200);
      assert.equal(first.headers.get("etag"), '"2"');
      const stale = await append(id, [userMessage("two")], { "if-match": '"1"' });
      assert.equal(stale.status, 412);
      assert.equal(stale.json.code, "conflict");
      assert.equal(stale.json.currentRevision, 2);
      assert.equal(stale.headers.get("etag"), '"2"');
      const leafMove = await t.call("PUT", `/v1/sessions/${id}/leaf`, {
        key,
        body: { leafId: null },
        headers: { "if-match": "1" },
      });
      assert.equal(leafMove.status, 412);
      assert.equal(leafMove.json.currentRevision, 2);
      const bad = await append(id, [userMessage("x")], { "if-match": "yesterday" });
      assert.equal(bad.status, 400);
      const page = await t.call("GET", `/v1/sessions/${id}/entries`, { key });
      assert.equal(page.json.entries.length, 1, "no stale write got in");
    });

    it("loses no update: two writers on one revision, the loser re-reads and retries", async () => {
      const id = await newSession();
      const { revision } = (await t.call("GET", `/v1/sessions/${id}`, { key })).json;
      const [a, b] = await Promise.all([
        append(id, [userMessage("from A")], { "if-match": `"${revision}"` }),
        append(id, [userMessage("from B")], { "if-match": `"${revision}"` }),
      ]);
      const statuses = [a.status, b.status].sort();
      assert.deepEqual(statuses, [200, 412]);
      const loser = a.status === 412 ? a : b;
      const retried = await append(id, [userMessage(loser === a ? "from A" : "from B")], {
        "if-match": `"${loser.json.currentRevision}"`,
      });
      assert.equal(retried.status, 200);
      const texts = (await t.call("GET", `/v1/sessions/${id}/branch`, { key })).json.entries.map(
        (e: { message: { content: string } }) => e.message.content,
      );
      assert.deepEqual([...texts].sort(), ["from A", "from B"]);
    });

    it("serializes 30 parallel unconditional appends into one chain with distinct revisions", async () => {
      const id = await newSession();
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) => append(id, [userMessage(`m${i}`)])),
      );
      assert.ok(results.every((r) => r.status === 200));
      const revisions = results.map((r) => r.json.revision as number);
      assert.equal(new Set(revisions).size, 30);
      const branch = (await t.call("GET", `/v1/sessions/${id}/branch`, { key })).json.entries;
      assert.equal(branch.length, 30, "every append is on the leaf's path: none forked off a stale leaf");
    });

    it("skips entries already stored with identical content (idempotent by entry id)", async () => {
      const id = await newSession();
      const batch = [fullEntry("a1", null, "x"), fullEntry("a2", "a1", "y")];
      const first = await append(id, batch);
      assert.deepEqual(first.json.appended, ["a1", "a2"]);
      const retry = await append(id, batch);
      assert.equal(retry.status, 200);
      assert.deepEqual(retry.json.skipped, ["a1", "a2"]);
      assert.equal(retry.json.revision, first.json.revision);
      const clash = await append(id, [fullEntry("a2", "a1", "different")]);
      assert.equal(clash.status, 409);
      assert.equal(clash.json.code, "duplicate_entry");
    });

    it("replays the first answer to a retry with the same Idempotency-Key", async () => {
      const id = await newSession();
      const headers = { "idempotency-key": `k-${id}` };
      const message = userMessage("once");
      const first = await append(id, [message], headers);
      const second = await append(id, [message], headers);
      assert.equal(second.status, first.status);
      assert.equal(second.text, first.text);
      assert.equal(second.headers.get("etag"), first.headers.get("etag"));
      const entries = (await t.call("GET", `/v1/sessions/${id}/entries`, { key })).json.entries;
      assert.equal(entries.length, 1);
      const reused = await append(id, [userMessage("another body")], headers);
      assert.equal(reused.status, 422);
      assert.equal(reused.json.code, "idempotency_key_reused");
    });

    it("scopes Idempotency-Keys per user and forgets failed attempts", async () => {
      const id = await newSession();
      const other = await t.key("bob");
      const otherId = (await t.call("POST", "/v1/sessions", { key: other, body: {} })).json.id;
      const headers = { "idempotency-key": "shared-key" };
      assert.equal((await append(id, [userMessage("a")], headers)).status, 200);
      const bobs = await t.call("POST", `/v1/sessions/${otherId}/entries`, {
        key: other,
        body: { entries: [userMessage("a")] },
        headers,
      });
      assert.equal(bobs.status, 200, "bob's key space is his own");
      const failing = { "idempotency-key": `fail-${id}` };
      const message = userMessage("b");
      const stale = await append(id, [message], { ...failing, "if-match": '"1"' });
      assert.equal(stale.status, 412);
      const current = { ...failing, "if-match": `"${stale.json.currentRevision}"` };
      const ok = await append(id, [message], current);
      assert.equal(ok.status, 200, "the failed attempt was not remembered: the key is free again");
      const replay = await append(id, [message], current);
      assert.equal(replay.text, ok.text);
      assert.equal((await t.call("GET", `/v1/sessions/${id}/entries`, { key })).json.entries.length, 2);
    });

    it("refuses a key reused for another request (422), after the first one is stored", async () => {
      const id = await newSession();
      const headers = { "idempotency-key": `reuse-${id}` };
      assert.equal((await append(id, [userMessage("first")], headers)).status, 200);
      const other = await append(id, [userMessage("second")], headers);
      assert.deepEqual([other.status, other.json.code], [422, "idempotency_key_reused"]);
    });

    it("makes session creation idempotent with a key too", async () => {
      const headers = { "idempotency-key": `create-${Date.now()}` };
      const a = await t.call("POST", "/v1/sessions", { key, body: { name: "once" }, headers });
      const b = await t.call("POST", "/v1/sessions", { key, body: { name: "once" }, headers });
      assert.equal(a.status, 201);
      assert.equal(b.json.id, a.json.id);
    });
  });
}
