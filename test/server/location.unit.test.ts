import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BACKENDS, startTestServer, type TestServer } from "./helpers.js";

/** A 201 that made a session says where it is (RFC 9110 §15.3.2), the first time and on a replay. */
for (const backend of BACKENDS) {
  describe(`Location of a session made (${backend})`, () => {
    let t: TestServer;
    let key: string;

    before(async () => {
      t = await startTestServer(backend);
      key = await t.key("alice");
    });
    after(() => t.close());

    it("create and import answer 201 with Location, the same on a replay of their Idempotency-Key", async () => {
      const jsonl = `${JSON.stringify({ type: "session", version: 3, id: "x", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" })}\n`;
      const made = [
        () => t.call("POST", "/v1/sessions", { key, body: {}, headers: { "idempotency-key": "create-1" } }),
        () =>
          t.call("POST", "/v1/sessions/import", {
            key,
            raw: jsonl,
            headers: { "content-type": "application/x-ndjson", "idempotency-key": "import-1" },
          }),
      ];
      for (const make of made) {
        const first = await make();
        assert.equal(first.status, 201, first.text);
        const location = first.headers.get("location");
        assert.equal(location, `/v1/sessions/${first.json.id}`);
        const replay = await make();
        assert.equal(replay.status, 201);
        assert.equal(replay.json.id, first.json.id, "the replay is the first answer");
        assert.equal(replay.headers.get("location"), location);
        const there = await t.call("GET", location as string, { key });
        assert.equal(there.status, 200);
        assert.equal(there.json.id, first.json.id);
      }
    });

    it("an answer that made nothing has no Location", async () => {
      const id = (await t.call("POST", "/v1/sessions", { key, body: {} })).json.id as string;
      const read = await t.call("GET", `/v1/sessions/${id}`, { key });
      assert.equal(read.headers.get("location"), null);
      const renamed = await t.call("PATCH", `/v1/sessions/${id}`, { key, body: { name: "n" } });
      assert.equal(renamed.status, 200, renamed.text);
      assert.equal(renamed.headers.get("location"), null);
    });
  });
}
