import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { noneMatchHolds } from "../../src/server/http/etag.js";
import { BACKENDS, startTestServer, type TestServer, userMessage } from "./helpers.js";

/**
 * Conditional reads (RFC 9110 §13.1.2): a read about one session sends its revision as the ETag,
 * and `If-None-Match` naming it answers 304 with no body, so a client that polls a session pays
 * for an answer only when it changed. Only after the credential and the session were checked: a
 * foreign or missing session answers 404 as always.
 */
describe("If-None-Match", () => {
  it("matches `*`, the revision's tag, weak or strong, in a list; nothing else", () => {
    for (const header of ["*", '"7"', 'W/"7"', ' "3", W/"7" ', '"3","7"'])
      assert.equal(noneMatchHolds(header, 7), true, header);
    for (const header of [undefined, "", '"8"', "7", '"7', 'W/"70"', "junk"])
      assert.equal(noneMatchHolds(header, 7), false, String(header));
  });
});

for (const backend of BACKENDS) {
  describe(`conditional reads (${backend})`, () => {
    let t: TestServer;
    let alice: string;
    let bob: string;
    let id: string;
    const reads = ["", "/context", "/tree", "/labels", "/stats", "/export", "/branch"];

    before(async () => {
      t = await startTestServer(backend);
      alice = await t.key("alice");
      bob = await t.key("bob");
      id = (await t.call("POST", "/v1/sessions", { key: alice, body: {} })).json.id as string;
      await t.call("POST", `/v1/sessions/${id}/entries`, {
        key: alice,
        body: { entries: [userMessage("one")] },
      });
    });
    after(() => t.close());

    it("every read about one session answers 304, no body, the same ETag, while the revision is current", async () => {
      for (const read of reads) {
        const path = `/v1/sessions/${id}${read}`;
        const full = await t.call("GET", path, { key: alice });
        assert.equal(full.status, 200, path);
        const etag = full.headers.get("etag");
        assert.ok(etag, `${path} sends an ETag`);
        for (const method of ["GET", "HEAD"]) {
          const again = await t.call(method, path, { key: alice, headers: { "if-none-match": etag } });
          assert.equal(again.status, 304, `${method} ${path}`);
          assert.equal(again.text, "", `${method} ${path}: no body`);
          assert.equal(again.headers.get("etag"), etag);
          assert.ok(again.headers.get("x-request-id"));
        }
        const other = await t.call("GET", path, { key: alice, headers: { "if-none-match": '"999"' } });
        assert.equal(other.status, 200, `${path}: another revision gets the answer`);
      }
    });

    it("a write makes the old tag stale: the next read is the full answer with the new ETag", async () => {
      const before = await t.call("GET", `/v1/sessions/${id}/context`, { key: alice });
      const etag = before.headers.get("etag") as string;
      await t.call("POST", `/v1/sessions/${id}/entries`, {
        key: alice,
        body: { entries: [userMessage("two")] },
      });
      const after = await t.call("GET", `/v1/sessions/${id}/context`, {
        key: alice,
        headers: { "if-none-match": etag },
      });
      assert.equal(after.status, 200);
      assert.notEqual(after.headers.get("etag"), etag);
      assert.equal((after.json.messages as unknown[]).length, 2);
    });

    it("another user's session, or none, is 404 whatever If-None-Match says", async () => {
      for (const [key, path] of [
        [bob, `/v1/sessions/${id}`],
        [alice, "/v1/sessions/no-such-session/context"],
      ] as const) {
        const answer = await t.call("GET", path, { key, headers: { "if-none-match": "*" } });
        assert.equal(answer.status, 404, path);
      }
    });

    it("a list, the entry pages and writes ignore If-None-Match", async () => {
      const star = { "if-none-match": "*" };
      assert.equal((await t.call("GET", "/v1/sessions", { key: alice, headers: star })).status, 200);
      assert.equal(
        (await t.call("GET", `/v1/sessions/${id}/entries`, { key: alice, headers: star })).status,
        200,
      );
      const appended = await t.call("POST", `/v1/sessions/${id}/entries`, {
        key: alice,
        body: { entries: [userMessage("three")] },
        headers: star,
      });
      assert.equal(appended.status, 200);
    });

    it("the export's whole read is let go of: a 304 does not hold a slot (many in a row all answer)", async () => {
      const etag = (await t.call("GET", `/v1/sessions/${id}/export`, { key: alice })).headers.get(
        "etag",
      ) as string;
      for (let i = 0; i < 12; i++) {
        const answer = await t.call("GET", `/v1/sessions/${id}/export`, {
          key: alice,
          headers: { "if-none-match": etag },
        });
        assert.equal(answer.status, 304, `request ${i}`);
      }
      assert.equal((await t.call("GET", `/v1/sessions/${id}/export`, { key: alice })).status, 200);
    });
  });
}
