import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { SessionTreeClient } from "../../src/client/index.js";
import { SNIPPET_MARK } from "../../src/core/search-hit.js";
import { startTestServer, type TestServer, userMessage } from "./helpers.js";

for (const backend of ["sqlite", "postgres"] as const) {
  describe(`GET /v1/search (${backend})`, () => {
    let t: TestServer;
    let alice: string;
    let bob: string;

    before(async () => {
      t = await startTestServer(backend);
      [alice, bob] = [await t.key("alice"), await t.key("bob")];
    });
    after(() => t.close());

    it("finds the user's own entries, best first, with marks and branch state", async () => {
      const client = new SessionTreeClient({ baseUrl: t.url, token: alice });
      const s = await client.createSession({ cwd: "/w", name: "tests" });
      const { appended } = await client.append(s.id, [
        userMessage("please grep for readBranch in the store"),
        userMessage("unrelated words"),
      ]);
      const { hits } = await client.search("Branch");
      assert.equal(hits.length, 1);
      const [hit] = hits;
      assert.equal(hit?.sessionId, s.id);
      assert.equal(hit?.entryId, appended[0]);
      assert.equal(hit?.kind, "user");
      assert.equal(hit?.branch, "path");
      assert.equal(hit?.sessionName, "tests");
      assert.ok(hit?.snippet.includes(SNIPPET_MARK.open), hit?.snippet);
      assert.deepEqual((await client.search("Branch", { sessionId: s.id, limit: 5 })).hits, hits);
    });

    it("never answers with another user's entries; their session answers like a missing one, byte for byte", async () => {
      const asBob = new SessionTreeClient({ baseUrl: t.url, token: bob });
      const theirs = await asBob.createSession({ cwd: "/b" });
      await asBob.append(theirs.id, [userMessage("bob confidential plan")]);
      const own = await t.call("GET", "/v1/search?q=confidential", { key: bob });
      assert.equal(own.status, 200);
      assert.equal(own.json.hits.length, 1);
      const none = await t.call("GET", "/v1/search?q=confidential", { key: alice });
      assert.equal(none.status, 200);
      assert.deepEqual(none.json, { hits: [] });
      const path = `/v1/search?q=confidential&sessionId=${theirs.id}`;
      const foreign = await t.call("GET", path, { key: alice });
      await t.server.services.store.purgeSession("bob", theirs.id);
      const missing = await t.call("GET", path, { key: alice });
      assert.equal(foreign.status, 404);
      assert.equal(missing.status, 404);
      assert.equal(foreign.text, missing.text);
      assert.equal(foreign.json.code, "session_not_found");
    });

    it("refuses an empty or blank query, a missing one, and bad parameters with 400", async () => {
      for (const query of ["q=", "q=%20%20", "", "q=ab", "q=word&limit=0", "q=word&sessionId=..%2Fx"]) {
        const answer = await t.call("GET", `/v1/search?${query}`, { key: alice });
        assert.equal(answer.status, 400, `${query}: ${answer.text}`);
        // The schema's check (invalid_request) or the store's (invalid_argument, e.g. a blank query).
        assert.ok(["invalid_request", "invalid_argument"].includes(answer.json.code), query);
      }
    });

    it("needs a credential", async () => {
      assert.equal((await t.call("GET", "/v1/search?q=word")).status, 401);
    });
  });
}
