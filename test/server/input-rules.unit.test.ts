import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BACKENDS, startTestServer, type TestServer } from "./helpers.js";

const HEADER = '{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n';
const ENTRY_START =
  '{"type":"custom","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","customType":"c"';

/** A JSONL line of a custom entry with `id` and the given raw JSON as its data. */
function line(id: string, data: string): string {
  return `${ENTRY_START},"id":"${id}","data":${data}}\n`;
}

/** One rule for every write path and both backends: issue 16, defects 2 and 9. */
for (const backend of BACKENDS) {
  describe(`input rules (${backend})`, () => {
    let t: TestServer;
    let key: string;
    const importFile = (text: string) =>
      t.call("POST", "/v1/sessions/import", {
        key,
        raw: text,
        headers: { "content-type": "application/x-ndjson" },
      });
    const appendRaw = (id: string, raw: string, headers: Record<string, string> = {}) =>
      t.call("POST", `/v1/sessions/${id}/entries`, {
        key,
        raw,
        headers: { "content-type": "application/json", ...headers },
      });

    before(async () => {
      t = await startTestServer(backend);
      key = await t.key("alice");
    });
    after(() => t.close());

    it("refuses an imported entry nested 20,000 deep, twice in the file, with 400 (not a stack overflow)", async () => {
      const deep = `${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}`;
      const answer = await importFile(HEADER + line("d", deep) + line("d", deep));
      assert.deepEqual([answer.status, answer.json.code], [400, "entry_too_deep"]);
      const once = await importFile(HEADER + line("d", deep));
      assert.deepEqual([once.status, once.json.code], [400, "entry_too_deep"]);
      const deepHeader = `{"type":"session","version":3,"id":"h","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/","x":${deep}}\n`;
      const header = await importFile(deepHeader + line("ok", "1"));
      assert.deepEqual([header.status, header.json.code], [400, "entry_too_deep"], "the header too");
    });

    it("refuses an imported entry over 2 MiB with 413", async () => {
      const answer = await importFile(HEADER + line("big", JSON.stringify("x".repeat(3 * 1024 * 1024))));
      assert.deepEqual([answer.status, answer.json.code], [413, "entry_too_large"]);
      const list = await t.call("GET", "/v1/sessions", { key });
      assert.equal(list.json.items.length, 0, "nothing was stored");
    });

    it("refuses 1e309 (Infinity), on append and import, instead of storing null", async () => {
      const id = (await t.call("POST", "/v1/sessions", { key, body: {} })).json.id;
      const entry = `{"entries":[{"type":"custom","customType":"c","data":{"n":1e309}}]}`;
      const appended = await appendRaw(id, entry);
      assert.deepEqual([appended.status, appended.json.code], [400, "invalid_json"]);
      const imported = await importFile(HEADER + line("inf", '{"n":-1e309}'));
      assert.deepEqual([imported.status, imported.json.code], [400, "invalid_entry"]);
    });

    it("refuses a NUL in an entry type with 400, on append and import", async () => {
      const id = (await t.call("POST", "/v1/sessions", { key, body: {} })).json.id;
      const appended = await appendRaw(id, '{"entries":[{"type":"a\\u0000b","data":1}]}');
      assert.deepEqual([appended.status, appended.json.code], [400, "invalid_entry"]);
      const text = `${HEADER}{"type":"a\\u0000b","id":"n","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z"}\n`;
      const imported = await importFile(text);
      assert.deepEqual([imported.status, imported.json.code], [400, "invalid_entry"]);
    });

    it('tells entries apart by what is under "__proto__", on append and import', async () => {
      const id = (await t.call("POST", "/v1/sessions", { key, body: {} })).json.id;
      const entry = (secret: number) =>
        `{"entries":[{"type":"custom","customType":"c","id":"p1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","__proto__":{"secret":${secret}}}]}`;
      assert.deepEqual((await appendRaw(id, entry(1))).json.appended, ["p1"]);
      assert.deepEqual((await appendRaw(id, entry(1))).json.skipped, ["p1"]);
      const changed = await appendRaw(id, entry(2));
      assert.deepEqual([changed.status, changed.json.code], [409, "duplicate_entry"]);
      const stored = (await t.call("GET", `/v1/sessions/${id}/entries`, { key })).text;
      assert.ok(stored.includes('"__proto__":{"secret":1}'), "the field is stored and sent back");
      const twice = await importFile(
        HEADER + line("p", '{"__proto__":{"s":1}}') + line("p", '{"__proto__":{"s":2}}'),
      );
      assert.deepEqual([twice.status, twice.json.code], [409, "duplicate_entry"]);
    });

    it("refuses a malformed If-Match and a non-integer limit with 400", async () => {
      const id = (await t.call("POST", "/v1/sessions", { key, body: {} })).json.id;
      for (const ifMatch of ['"1', '1"', 'W/"1']) {
        const answer = await t.call("PUT", `/v1/sessions/${id}/leaf`, {
          key,
          body: { leafId: null },
          headers: { "if-match": ifMatch },
        });
        assert.deepEqual([answer.status, answer.json.code], [400, "invalid_request"], ifMatch);
      }
      const ok = await t.call("PUT", `/v1/sessions/${id}/leaf`, {
        key,
        body: { leafId: null },
        headers: { "if-match": '"1"' },
      });
      assert.equal(ok.status, 200);
      for (const limit of ["1.5", "1e1", "0x10"]) {
        const answer = await t.call("GET", `/v1/sessions?limit=${limit}`, { key });
        assert.deepEqual([answer.status, answer.json.code], [400, "invalid_request"], limit);
      }
      assert.equal((await t.call("GET", "/v1/sessions?limit=2", { key })).status, 200);
    });

    it("answers GET /v1/sessions/ (trailing slash) like /v1/sessions", async () => {
      const plain = await t.call("GET", "/v1/sessions", { key });
      const slash = await t.call("GET", "/v1/sessions/", { key });
      assert.equal(slash.status, 200);
      assert.deepEqual(slash.json, plain.json);
    });
  });
}
