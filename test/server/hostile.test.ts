import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Random } from "../support/random.js";
import { BACKENDS, type CallOptions, startTestServer, type TestServer, userMessage } from "./helpers.js";

interface Hostile {
  method: string;
  path: string;
  options: CallOptions;
}

const LIMITS = {
  maxBodyBytes: 64 * 1024,
  maxEntryBytes: 8 * 1024,
  maxEntriesPerRequest: 50,
  maxImportBytes: 128 * 1024,
};

/** Request makers, each certain to be refused with a 4xx. */
function makers(key: string, session: string, rng: Random): Array<() => Hostile> {
  const s = `/v1/sessions/${session}`;
  const json = (
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Hostile => ({
    method,
    path,
    options: { key, body, headers },
  });
  const raw = (method: string, path: string, text: string, type = "application/json"): Hostile => ({
    method,
    path,
    options: { key, raw: text, headers: { "content-type": type } },
  });
  const valid = JSON.stringify({ entries: [userMessage("hi")] });
  const badIds = [
    "../etc",
    "a/b",
    "a\\b",
    "..",
    "with space",
    "x".repeat(200),
    "nul\u0000",
    "semi;colon",
    "%2F",
    "",
  ];
  return [
    // Malformed JSON.
    () => raw("POST", `${s}/entries`, valid.slice(0, rng.int(valid.length - 1))),
    () =>
      raw(
        "POST",
        `${s}/entries`,
        rng.pick(["{", "]", "nul", "{'a':1}", "\u0000", "\ufeff{}x", '{"entries":[}', "1e999x"]),
      ),
    () =>
      raw(
        "POST",
        "/v1/sessions",
        Array.from({ length: 40 }, () => String.fromCharCode(rng.int(128))).join(""),
      ),
    () => raw("POST", `${s}/entries`, `${"[".repeat(50_000)}${"]".repeat(50_000)}`),
    () => raw("PUT", `${s}/leaf`, `{"leafId":${'{"a":'.repeat(200)}1${"}".repeat(200)}}`),
    // Wrong types and shapes.
    () =>
      json(
        "POST",
        `${s}/entries`,
        rng.pick([{}, [], "x", 5, null, { entries: "x" }, { entries: [] }, { entries: [1] }]),
      ),
    () => json("POST", `${s}/entries`, { entries: [{ type: rng.pick([5, "", null, true]) }] }),
    () =>
      json("POST", `${s}/entries`, { entries: [{ type: "message", message: rng.pick(["x", 5, null, {}]) }] }),
    () => json("POST", `${s}/entries`, { entries: [{ type: "compaction", summary: 1 }] }),
    () => json("POST", `${s}/entries`, { entries: [userMessage("x")], moveLeaf: "yes" }),
    () => json("POST", `${s}/entries`, { entries: [userMessage("x")], extra: true }),
    () =>
      json("PUT", `${s}/leaf`, rng.pick([{ leafId: 5 }, {}, { leafId: ["a"] }, { leafId: null, more: 1 }])),
    () => json("PATCH", s, rng.pick([{ name: 5 }, {}, { name: "x", owner: "bob" }])),
    () => json("POST", "/v1/sessions", rng.pick([{ cwd: 5 }, { id: "chosen" }, { owner: "bob" }, []])),
    () =>
      json(
        "POST",
        `${s}/labels`,
        rng.pick([{ targetId: 1 }, { label: "x" }, { targetId: "a/b", label: "x" }]),
      ),
    () =>
      json("POST", `${s}/branches`, rng.pick([{ fromId: 7 }, { summary: "s" }, { fromId: "x", summary: 5 }])),
    // Unknown parents, entries and targets.
    () =>
      json("POST", `${s}/entries`, {
        entries: [{ ...userMessage("x"), parentId: `nope${rng.int(1e6)}` }],
      }),
    () => json("PUT", `${s}/leaf`, { leafId: `missing${rng.int(1e6)}` }),
    () => json("POST", `${s}/labels`, { targetId: "missing1", label: "x" }),
    () => json("POST", `${s}/branches`, { fromId: "missing2", summary: "lost" }),
    // Ids with path characters, in the path and in bodies.
    () => ({
      method: "GET",
      path: `/v1/sessions/${encodeURIComponent(rng.pick(badIds))}/tree`,
      options: { key },
    }),
    () => json("POST", `${s}/entries`, { entries: [{ ...userMessage("x"), id: rng.pick(badIds) }] }),
    () => json("PUT", `${s}/leaf`, { leafId: rng.pick(badIds) }),
    () => ({
      method: "GET",
      path: `${s}/context?leafId=${encodeURIComponent(rng.pick(badIds))}`,
      options: { key },
    }),
    // Bad queries.
    () => ({
      method: "GET",
      path: `/v1/sessions?${rng.pick(["limit=-1", "limit=abc", "limit=100000", "state=gone", "cursor=%%%", "cursor=bm9wZQ"])}`,
      options: { key },
    }),
    () => ({
      method: "GET",
      path: `${s}/entries?${rng.pick(["after=-5", "after=x", "limit=0", "limit=99999"])}`,
      options: { key },
    }),
    // Headers.
    () =>
      json(
        "POST",
        `${s}/entries`,
        { entries: [userMessage("x")] },
        { "if-match": rng.pick(["abc", '"-1"', "W/", '"1", "2"']) },
      ),
    () =>
      json(
        "POST",
        `${s}/entries`,
        { entries: [userMessage("x")] },
        { "idempotency-key": rng.pick(["has space", "k".repeat(300), "é"]) },
      ),
    () =>
      raw(
        "POST",
        `${s}/entries`,
        valid,
        rng.pick(["text/plain", "application/xml", "", "multipart/form-data"]),
      ),
    () => ({
      method: "GET",
      path: s,
      options: {
        key: null,
        headers: {
          authorization: rng.pick([
            "Basic YTpi",
            "Bearer",
            `Bearer ${"x".repeat(5000)}`,
            "Bearer a.b.c",
            "st_abc",
          ]),
        },
      },
    }),
    () => ({ method: "GET", path: s, options: { key: `st_${"0".repeat(12)}_${"A".repeat(43)}` } }),
    // Limits.
    () => raw("POST", `${s}/entries`, JSON.stringify({ entries: [userMessage("x".repeat(70 * 1024))] })),
    () => json("POST", `${s}/entries`, { entries: [userMessage("y".repeat(9 * 1024))] }),
    () => json("POST", `${s}/entries`, { entries: Array.from({ length: 51 }, () => userMessage("z")) }),
    () => raw("POST", "/v1/sessions/import", "x".repeat(130 * 1024), "application/x-ndjson"),
    // Imports that are not sessions.
    () =>
      raw(
        "POST",
        "/v1/sessions/import",
        rng.pick(["", "not json\n", '{"type":"message"}\n', "[]\n", '{"type":"session"}\n']),
        "application/x-ndjson",
      ),
    // Text no database column can hold (PostgreSQL refuses NUL in text).
    () => json("POST", "/v1/sessions", { name: "a\u0000b", cwd: "\u0000" }),
    () => json("GET", `/v1/sessions?search=${encodeURIComponent("x\u0000")}`, undefined),
    // Unknown routes and methods.
    () => ({
      method: rng.pick(["GET", "POST", "DELETE"]),
      path: rng.pick(["/v1/nope", "/v2/sessions", "/v1/sessions/a/b/c", "/.env", "/v1/keys/x/y"]),
      options: { key },
    }),
    () => ({
      method: rng.pick(["PUT", "PATCH"]),
      path: rng.pick(["/v1/sessions", "/v1/keys", `${s}/tree`, "/openapi.json"]),
      options: { key },
    }),
  ];
}

for (const backend of BACKENDS) {
  describe(`hostile input (${backend})`, () => {
    let t: TestServer;
    let key: string;
    let session: string;

    before(async () => {
      t = await startTestServer(backend, { limits: LIMITS });
      key = await t.key("mallory");
      session = (await t.call("POST", "/v1/sessions", { key, body: {} })).json.id;
      await t.call("POST", `/v1/sessions/${session}/entries`, {
        key,
        body: { entries: [userMessage("seed")] },
      });
    });
    after(() => t.close());

    it("answers 1,000 malformed or hostile requests with a 4xx { code, message }, never a 5xx", async () => {
      const rng = new Random(backend === "sqlite" ? 42 : 43);
      const list = makers(key, session, rng);
      const requests = Array.from({ length: 1000 }, (_, i) => (list[i % list.length] as () => Hostile)());
      const failures: string[] = [];
      const seen = new Set<string>();
      for (let i = 0; i < requests.length; i += 25) {
        await Promise.all(
          requests.slice(i, i + 25).map(async (r, j) => {
            const res = await t.call(r.method, r.path, r.options);
            const ok =
              res.status >= 400 &&
              res.status < 500 &&
              typeof res.json?.code === "string" &&
              typeof res.json?.message === "string";
            seen.add(`${res.status} ${res.json?.code}`);
            if (!ok)
              failures.push(
                `#${i + j} ${r.method} ${r.path.slice(0, 80)} → ${res.status} ${res.text.slice(0, 120)}`,
              );
          }),
        );
      }
      assert.deepEqual(failures, []);
      // The barrage reaches every kind of refusal, not just the first check at the door.
      for (const expected of [
        "400 invalid_json",
        "400 invalid_request",
        "400 invalid_entry",
        "401 unauthorized",
      ]) {
        assert.ok(seen.has(expected), expected);
      }
      for (const expected of ["404 entry_not_found", "404 route_not_found", "405 method_not_allowed"]) {
        assert.ok(seen.has(expected), expected);
      }
      assert.ok(seen.has("413 payload_too_large") && seen.has("415 unsupported_media_type"));
    });

    it("is still up and correct afterwards", async () => {
      assert.equal((await t.call("GET", "/healthz")).status, 200);
      const page = await t.call("GET", `/v1/sessions/${session}/entries`, { key });
      assert.equal(page.json.entries.length, 1, "no hostile request wrote anything");
      const ok = await t.call("POST", `/v1/sessions/${session}/entries`, {
        key,
        body: { entries: [userMessage("fine")] },
      });
      assert.equal(ok.status, 200);
    });

    it("refuses an entry whose fields would come from a __proto__ key, and stores nothing", async () => {
      // Raw text: in a JS literal `__proto__` would set the prototype instead of making a key.
      const message = JSON.stringify(userMessage("smuggled").message);
      const raw = `{"entries":[{"type":"message","__proto__":{"message":${message}}}]}`;
      const headers = { "content-type": "application/json" };
      const before = (await t.call("GET", `/v1/sessions/${session}`, { key })).json.entryCount;
      const r = await t.call("POST", `/v1/sessions/${session}/entries`, { key, raw, headers });
      assert.deepEqual([r.status, r.json.code], [400, "invalid_entry"]);
      assert.equal((await t.call("GET", `/v1/sessions/${session}`, { key })).json.entryCount, before);
    });

    it("maps each limit to its status", async () => {
      const s = `/v1/sessions/${session}/entries`;
      const big = await t.call("POST", s, {
        key,
        raw: "x".repeat(70_000),
        headers: { "content-type": "application/json" },
      });
      assert.deepEqual([big.status, big.json.code], [413, "payload_too_large"]);
      const many = await t.call("POST", s, {
        key,
        body: { entries: Array.from({ length: 51 }, () => userMessage("z")) },
      });
      assert.deepEqual([many.status, many.json.code], [413, "payload_too_large"]);
      const unknownParent = await t.call("POST", s, {
        key,
        body: { entries: [{ ...userMessage("x"), parentId: "ghost" }] },
      });
      assert.ok(unknownParent.status >= 400 && unknownParent.status < 500);
      const header = { type: "session", version: 3, id: "f", timestamp: new Date().toISOString(), cwd: "/" };
      const line = {
        ...userMessage("w".repeat(70_000)),
        id: "e1",
        parentId: null,
        timestamp: header.timestamp,
      };
      const file = `${JSON.stringify(header)}\n${JSON.stringify(line)}\n`;
      const imported = await t.call("POST", "/v1/sessions/import", { key, raw: file });
      assert.equal(imported.status, 201, "an import may exceed the JSON body limit, up to its own");
      const path = await t.call("GET", "/v1/sessions/..%2F..%2Fetc%2Fpasswd", { key });
      assert.deepEqual([path.status, path.json.code], [400, "invalid_request"]);
    });
  });
}

describe("rate limit", () => {
  it("answers 429 with Retry-After and RateLimit-* once a user's bucket is empty, per user", async () => {
    const t = await startTestServer("sqlite", { rateLimit: { perSecond: 1, burst: 3 } });
    try {
      const a = await t.key("a");
      const b = await t.key("b");
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await t.call("GET", "/v1/sessions", { key: a })).status);
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
      const limited = await t.call("GET", "/v1/sessions", { key: a });
      assert.equal(limited.json.code, "rate_limited");
      assert.ok(Number(limited.headers.get("retry-after")) >= 1);
      assert.equal(limited.headers.get("ratelimit-limit"), "3");
      assert.equal(limited.headers.get("ratelimit-remaining"), "0");
      assert.ok(Number(limited.headers.get("ratelimit-reset")) >= 1);
      const other = await t.call("GET", "/v1/sessions", { key: b });
      assert.equal(other.status, 200, "another user has their own bucket");
      assert.deepEqual(
        [other.headers.get("ratelimit-limit"), other.headers.get("ratelimit-remaining")],
        ["3", "2"],
      );
      assert.equal(other.headers.get("retry-after"), null);
    } finally {
      await t.close();
    }
  });

  it("counts all of a user's keys in one bucket: ten keys do not make ten limits", async () => {
    const t = await startTestServer("sqlite", { rateLimit: { perSecond: 1, burst: 20 } });
    try {
      const keys = await Promise.all(Array.from({ length: 10 }, () => t.key("many-keys")));
      const started = performance.now();
      const calls = Array.from({ length: 250 }, (_, i) =>
        t.call("GET", "/v1/sessions?limit=1", { key: keys[i % keys.length] }),
      );
      const statuses = (await Promise.all(calls)).map((r) => r.status);
      const seconds = (performance.now() - started) / 1000;
      const ok = statuses.filter((status) => status === 200).length;
      assert.equal(ok + statuses.filter((status) => status === 429).length, 250);
      // One bucket: the burst (20) plus what refills while the requests run (1/s), however slow
      // the machine; a bucket per key would pass 10 × 20 = 200.
      assert.ok(ok >= 20 && ok <= 21 + Math.ceil(seconds) && ok < 100, `${ok} of 250 passed in ${seconds} s`);
    } finally {
      await t.close();
    }
  });

  it("limits requests without a valid credential per client address, before looking keys up", async () => {
    const t = await startTestServer("sqlite", { rateLimit: { perSecond: 1, burst: 3 } });
    try {
      const good = await t.key("bystander");
      const db = t.server.services.db;
      let lookups = 0;
      const findKey = db.findKey.bind(db);
      db.findKey = (id) => {
        lookups++;
        return findKey(id);
      };
      const bad = "st_aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await t.call("GET", "/v1/sessions", { key: bad })).status);
      assert.deepEqual(statuses, [401, 401, 401, 429, 429, 429]);
      assert.equal(lookups, 3, "a refused address costs no key lookup");
      const anonymous = await t.call("GET", "/v1/sessions");
      assert.equal(anonymous.status, 429, "no credential at all: the same address bucket");
      assert.ok(Number(anonymous.headers.get("retry-after")) >= 1);
      // A valid credential from that address is still refused before its lookup (the address is
      // the only thing known about a request before its key is looked up).
      assert.equal((await t.call("GET", "/v1/sessions", { key: good })).status, 429);
    } finally {
      await t.close();
    }
  });

  it("believes X-Forwarded-For only with trustProxy", async () => {
    for (const trustProxy of [0, 1]) {
      const t = await startTestServer("sqlite", { rateLimit: { perSecond: 1, burst: 1 }, trustProxy });
      try {
        const from = (address: string) =>
          t.call("GET", "/healthz", { headers: { "x-forwarded-for": `10.0.0.9, ${address}` } });
        const statuses = [(await from("192.0.2.1")).status, (await from("192.0.2.2")).status];
        // Trusted: two clients behind the proxy, one token each; untrusted: one peer (loopback).
        assert.deepEqual(statuses, trustProxy ? [200, 200] : [200, 429], `trustProxy ${trustProxy}`);
      } finally {
        await t.close();
      }
    }
  });
});

for (const backend of BACKENDS) {
  it(`never answers a NUL character inside an entry with a 5xx (${backend})`, async () => {
    const t = await startTestServer(backend);
    try {
      const key = await t.key("nul");
      const id = (await t.call("POST", "/v1/sessions", { key, body: {} })).json.id;
      const r = await t.call("POST", `/v1/sessions/${id}/entries`, {
        key,
        body: { entries: [userMessage("a\u0000b")] },
      });
      assert.ok(r.status < 500, `${r.status} ${r.text}`);
      assert.equal((await t.call("GET", "/healthz")).status, 200);
    } finally {
      await t.close();
    }
  });
}
