import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
// @ts-expect-error: a plain .mjs script without types
import { startPostgres } from "../../scripts/pg.mjs";
import { SessionTreeApiError, SessionTreeClient } from "../../src/client/index.js";
import {
  BACKENDS,
  type CallOptions,
  type CallResult,
  startTestServer,
  type TestServer,
  userMessage,
} from "./helpers.js";

/**
 * The API against its own contract: what an outside harness checks when it drives the service from
 * the published /openapi.json (every status documented for its operation, every body valid against
 * the documented schema, the headers docs/server.md promises), plus HTTP semantics the docs promise.
 * Tests whose comment says "a defect until fixed" failed before the fix they came with; the others
 * are regression checks of what held.
 */

type Json = Record<string, unknown>;
interface ResponseSpec {
  description: string;
  content?: Record<string, { schema?: object }>;
}
interface Parameter {
  name: string;
  in: string;
  schema?: object;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  responses: Record<string, ResponseSpec>;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
}

/** The published document, compiled once: says what is wrong with an answer, by the document. */
class Contract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<object, ValidateFunction>();

  constructor(readonly doc: Doc) {}

  operation(method: string, template: string): Operation | undefined {
    return this.doc.paths[template]?.[method.toLowerCase()];
  }

  operations(): Array<{ method: string; template: string; op: Operation }> {
    return Object.entries(this.doc.paths).flatMap(([template, item]) =>
      Object.entries(item).map(([method, op]) => ({ method, template, op })),
    );
  }

  validator(schema: object): ValidateFunction {
    let v = this.compiled.get(schema);
    if (!v) {
      v = this.ajv.compile(schema);
      this.compiled.set(schema, v);
    }
    return v;
  }

  /** What breaks the document in this answer: an undocumented status, a body its schema refuses. */
  problems(method: string, template: string, r: CallResult, label = ""): string[] {
    const where = `${method} ${template}${label ? ` (${label})` : ""}`;
    const op = this.operation(method, template);
    if (!op) return [`${where}: not in the document`];
    const spec = op.responses[String(r.status)];
    if (!spec) {
      const documented = Object.keys(op.responses).join(", ");
      return [`${where}: status ${r.status} is not documented (${documented}): ${r.text.slice(0, 160)}`];
    }
    const schema = spec.content?.["application/json"]?.schema;
    if (!schema || method === "HEAD") return [];
    const validate = this.validator(schema);
    if (validate(r.json)) return [];
    return [
      `${where} ${r.status}: body breaks the schema: ${this.ajv.errorsText(validate.errors)}: ${r.text.slice(0, 200)}`,
    ];
  }
}

async function contractOf(t: TestServer): Promise<Contract> {
  const r = await t.call("GET", "/openapi.json");
  assert.equal(r.status, 200);
  return new Contract(r.json as Doc);
}

const jsonl = (...values: unknown[]) => `${values.map((v) => JSON.stringify(v)).join("\n")}\n`;
const header = (extra: Json = {}) => ({
  type: "session",
  version: 3,
  id: "file-id",
  timestamp: "2026-01-01T00:00:00.000Z",
  cwd: "/w",
  ...extra,
});
const userEntry = (id: string, parentId: string | null, extra: Json = {}) => ({
  type: "message",
  id,
  parentId,
  timestamp: "2026-01-01T00:00:01.000Z",
  message: { role: "user", content: `hello from ${id}`, timestamp: 1 },
  ...extra,
});
const NDJSON = { "content-type": "application/x-ndjson" };

// One PostgreSQL cluster for the file: the test runner's when it set one up, else our own.
let stopPostgres: (() => void) | undefined;
before(async () => {
  if (process.env.SESSIONTREE_TEST_PG_URL) return;
  const pg = await startPostgres();
  process.env.SESSIONTREE_TEST_PG_URL = pg.url;
  stopPostgres = pg.stop;
});
after(() => {
  stopPostgres?.();
  if (stopPostgres) delete process.env.SESSIONTREE_TEST_PG_URL;
});

/** Operations whose 2xx answers are "about one session" (docs/server.md, Concurrency): they carry ETag. */
const ABOUT_ONE_SESSION = new Set([
  "createSession",
  "getSession",
  "renameSession",
  "deleteSession",
  "restoreSession",
  "appendEntries",
  "readBranch",
  "setLeaf",
  "branchSession",
  "getLabels",
  "setLabel",
  "getContext",
  "getTree",
  "getSessionStats",
  "exportSession",
  "importSession",
  "putSyncSession",
  "syncAppendEntries",
]);

for (const backend of BACKENDS) {
  describe(`contract hunt: every documented operation (${backend})`, () => {
    let t: TestServer;
    let contract: Contract;
    let key: string;

    before(async () => {
      // A rate limit far above what the test sends: every answer must carry the RateLimit-* headers.
      t = await startTestServer(backend, { rateLimit: { perSecond: 10_000, burst: 10_000 } });
      contract = await contractOf(t);
      key = await t.key("alice");
    });
    after(() => t.close());

    // Regression check. Contract: /openapi.json lists, per operation, every status it answers and the
    // schema of each body; docs/server.md: every response about one session carries
    // `ETag: "<revision>"`, every answer carries X-Request-Id and (behind the rate limit) RateLimit-*,
    // a 401 carries WWW-Authenticate (RFC 9110 §11.6.1).
    it("answers valid requests, and the documented 400/401/404, within the document, with the promised headers", async () => {
      const problems: string[] = [];
      const exercised = new Set<string>();
      const send = async (method: string, template: string, path: string, options: CallOptions = {}) => {
        const r = await t.call(method, path, { key, ...options });
        const op = contract.operation(method, template);
        exercised.add(`${method.toLowerCase()} ${template}`);
        problems.push(...contract.problems(method, template, r, path));
        if (!r.headers.get("x-request-id")) problems.push(`${method} ${path}: no X-Request-Id`);
        for (const name of ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]) {
          if (!r.headers.get(name)) problems.push(`${method} ${path} ${r.status}: no ${name}`);
        }
        if (op && r.status < 300 && ABOUT_ONE_SESSION.has(op.operationId)) {
          const etag = r.headers.get("etag");
          if (!etag) problems.push(`${method} ${path} ${r.status}: no ETag on an answer about one session`);
          const revision = (r.json as { revision?: unknown } | undefined)?.revision;
          if (typeof revision === "number" && etag !== `"${revision}"`)
            problems.push(`${method} ${path}: ETag ${etag} but revision ${revision}`);
        }
        if (r.status === 401 && !r.headers.get("www-authenticate"))
          problems.push(`${method} ${path}: 401 without WWW-Authenticate`);
        // docs/server.md: "a HEAD of any route answers the GET's status and headers".
        if (method === "GET" && op && ABOUT_ONE_SESSION.has(op.operationId)) {
          const head = await t.call("HEAD", path, { key, ...options });
          if (
            head.status !== r.status ||
            head.headers.get("etag") !== r.headers.get("etag") ||
            head.text !== ""
          )
            problems.push(
              `HEAD ${path}: ${head.status} ${head.headers.get("etag")} vs GET ${r.status} ${r.headers.get("etag")}`,
            );
        }
        return r;
      };

      const created = await send("POST", "/v1/sessions", "/v1/sessions", {
        body: { cwd: "/w", name: "contract" },
        headers: { "idempotency-key": "sweep-create" },
      });
      const id = created.json.id as string;
      const S = `/v1/sessions/${id}`;
      await send("POST", "/v1/sessions", "/v1/sessions", {
        body: { cwd: "/w", name: "contract" },
        headers: { "idempotency-key": "sweep-create" },
      });
      const assistant = {
        type: "message",
        message: {
          role: "assistant",
          content: [{ type: "text", text: "hello back" }],
          provider: "p",
          model: "m",
          usage: {
            input: 10,
            output: 5,
            cacheRead: 0,
            cacheWrite: 0,
            totalTokens: 15,
            cost: { input: 0.1, output: 0.1, cacheRead: 0, cacheWrite: 0, total: 0.2 },
          },
          timestamp: 1_760_000_000_500,
        },
      };
      const appended = await send("POST", "/v1/sessions/{id}/entries", `${S}/entries`, {
        body: { entries: [userMessage("hello world"), assistant] },
        headers: { "if-match": `"${created.json.revision}"` },
      });
      const [first, second] = appended.json.appended as [string, string];
      await send("GET", "/v1/sessions", "/v1/sessions?limit=5&state=all&search=contract");
      await send("GET", "/v1/sessions/{id}", `${S}?includeDeleted=false`);
      await send("PATCH", "/v1/sessions/{id}", S, { body: { name: "renamed" } });
      await send("GET", "/v1/sessions/{id}/entries", `${S}/entries?after=0&limit=1`);
      await send("GET", "/v1/sessions/{id}/branch", `${S}/branch?leafId=${second}`);
      await send("PUT", "/v1/sessions/{id}/leaf", `${S}/leaf`, { body: { leafId: first } });
      await send("POST", "/v1/sessions/{id}/branches", `${S}/branches`, { body: { fromId: second } });
      await send("POST", "/v1/sessions/{id}/branches", `${S}/branches`, {
        body: { fromId: first, summary: "tried another way", details: { files: ["a"] } },
      });
      await send("POST", "/v1/sessions/{id}/labels", `${S}/labels`, {
        body: { targetId: first, label: "L" },
      });
      await send("GET", "/v1/sessions/{id}/labels", `${S}/labels`);
      await send("GET", "/v1/sessions/{id}/context", `${S}/context`);
      await send("GET", "/v1/sessions/{id}/tree", `${S}/tree`);
      await send("GET", "/v1/sessions/{id}/stats", `${S}/stats?since=2020-01-01&idle=5`);
      for (const by of ["session", "day", "model", "cwd"])
        await send("GET", "/v1/stats", `/v1/stats?by=${by}&since=30d`);
      const exported = await send("GET", "/v1/sessions/{id}/export", `${S}/export`);
      await send("POST", "/v1/sessions/import", "/v1/sessions/import", {
        raw: exported.text,
        headers: NDJSON,
      });
      await send("GET", "/v1/search", `/v1/search?q=hello&limit=5&sessionId=${id}`);
      await send("GET", "/v1/keys", "/v1/keys");
      const made = await send("POST", "/v1/keys", "/v1/keys", { body: { name: "second" } });
      await send("DELETE", "/v1/keys/{keyId}", `/v1/keys/${made.json.info.id}`);
      const state = await send("POST", "/v1/sync/state", "/v1/sync/state", { body: { digest: "" } });
      await send("POST", "/v1/sync/state", "/v1/sync/state", { body: { digest: state.json.digest } });
      const syncBody = { timestamp: "2026-01-01T00:00:00.000Z", cwd: "/s", parentSession: "/p.jsonl" };
      await send("PUT", "/v1/sync/sessions/{id}", "/v1/sync/sessions/from-a-copy", { body: syncBody });
      await send("PUT", "/v1/sync/sessions/{id}", "/v1/sync/sessions/from-a-copy", { body: syncBody });
      await send("POST", "/v1/sync/sessions/{id}/entries", "/v1/sync/sessions/from-a-copy/entries", {
        body: { entries: [userEntry("c1", null), userEntry("c2", "c1")] },
      });
      await send("DELETE", "/v1/sessions/{id}", S);
      await send("GET", "/v1/deletions", "/v1/deletions?limit=10");
      await send("POST", "/v1/sessions/{id}/restore", `${S}/restore`);
      for (const path of ["/healthz", "/readyz", "/version", "/metrics", "/openapi.json"])
        await send("GET", path, path, { key: null });

      // The documented errors of every authenticated operation: no credential (401), a missing
      // session or key (404), an id breaking its pattern (400).
      const bodies: Record<string, unknown> = {
        "post /v1/sessions": {},
        "patch /v1/sessions/{id}": { name: "x" },
        "post /v1/sessions/{id}/entries": { entries: [userMessage("x")] },
        "put /v1/sessions/{id}/leaf": { leafId: null },
        "post /v1/sessions/{id}/branches": { fromId: null },
        "post /v1/sessions/{id}/labels": { targetId: "e1", label: "x" },
        "post /v1/keys": {},
        "post /v1/sync/state": { digest: "" },
        "put /v1/sync/sessions/{id}": syncBody,
        "post /v1/sync/sessions/{id}/entries": { entries: [userEntry("c1", null)] },
      };
      const MISSING = "01a00000-0000-7000-8000-000000000000";
      for (const { method, template, op } of contract.operations()) {
        if (!("401" in op.responses)) continue;
        const M = method.toUpperCase();
        const body = bodies[`${method} ${template}`];
        const withBody = (extra: CallOptions): CallOptions =>
          template === "/v1/sessions/import"
            ? { raw: exported.text, headers: NDJSON, ...extra }
            : { body, ...extra };
        const fill = (value: string) => template.replace(/\{[^}]+\}/g, value);
        const q = template === "/v1/search" ? "?q=hello" : "";
        await send(M, template, fill(MISSING) + q, withBody({ key: null }));
        if (template.includes("{")) {
          // A sync PUT of a new id creates it: only its malformed id is an error.
          if (template !== "/v1/sync/sessions/{id}") await send(M, template, fill(MISSING), withBody({}));
          await send(M, template, fill("bad%20id"), withBody({}));
        }
      }
      await send("POST", "/v1/sessions/{id}/purge", `${S}/purge`);

      const documented = contract.operations().map(({ method, template }) => `${method} ${template}`);
      assert.deepEqual(
        documented.filter((op) => !exercised.has(op)),
        [],
        "every documented operation was exercised",
      );
      assert.deepEqual(problems, []);
    });
  });

  describe(`contract hunt: imported and synced history (${backend})`, () => {
    let t: TestServer;
    let contract: Contract;
    let key: string;
    before(async () => {
      t = await startTestServer(backend);
      contract = await contractOf(t);
      key = await t.key("alice");
    });
    after(() => t.close());

    // Contract (a defect until fixed with this test): docs/server.md, "Limits and bad input": "Every refusal is a 4xx …; bad input never
    // causes a 5xx"; /openapi.json: a 201 of importSession is a SessionSummary (createdAt: string).
    // pi's header check (core/validate.ts checkHeader) only asks for a string id, and
    // store/summary.ts initialSummary copies `header.timestamp` into createdAt as it is: a missing
    // or null timestamp breaks the NOT NULL column (500 on both backends); a number, object or
    // boolean is answered as createdAt (PostgreSQL keeps objects too, SQLite answers 500).
    it("imports a file whose header timestamp is missing or not a string with a 4xx, never a 500 or a non-string createdAt", async () => {
      const problems: string[] = [];
      const variants: Array<[string, Json]> = [
        ["missing", {}],
        ["null", { timestamp: null }],
        ["number", { timestamp: 5 }],
        ["object", { timestamp: {} }],
        ["boolean", { timestamp: true }],
      ];
      for (const [label, extra] of variants) {
        const h: Json = { ...header(), ...extra };
        if (label === "missing") delete h.timestamp;
        const r = await t.call("POST", "/v1/sessions/import", {
          key,
          raw: jsonl(h, userEntry("m1", null)),
          headers: NDJSON,
        });
        if (r.status >= 500) problems.push(`${label}: ${r.status} ${r.text}`);
        problems.push(...contract.problems("POST", "/v1/sessions/import", r, `header timestamp ${label}`));
        if (r.status === 201) {
          const read = await t.call("GET", `/v1/sessions/${r.json.id}`, { key });
          if (JSON.stringify(read.json.createdAt) !== JSON.stringify(r.json.createdAt))
            problems.push(
              `${label}: answered createdAt ${JSON.stringify(r.json.createdAt)}, read back ${JSON.stringify(read.json.createdAt)}`,
            );
        }
      }
      assert.deepEqual(problems, []);
    });

    // Contract (a defect until fixed with this test): /openapi.json: readEntries, readBranch and getTree answer `Entry` / `TreeNode` items
    // whose `timestamp` is a required string. The service deliberately keeps history entries
    // without one (import, and `sessiontree sync` pushes: store `history` option, core's
    // checkEntryRead "kept as malformed", as pi keeps them) and serves them as stored, so these
    // answers break the published schema (schemas.ts Entry, TreeNode; client types Entry).
    it("serves entries kept from history without a string timestamp in the documented shape", async () => {
      const noTimestamp = userEntry("m2", "m1");
      delete (noTimestamp as Json).timestamp;
      const imported = await t.call("POST", "/v1/sessions/import", {
        key,
        raw: jsonl(header(), userEntry("m1", null), noTimestamp, userEntry("m3", "m2", { timestamp: 12 })),
        headers: NDJSON,
      });
      assert.equal(imported.status, 201, imported.text);
      const synced = "synced-history";
      const put = await t.call("PUT", `/v1/sync/sessions/${synced}`, {
        key,
        body: { timestamp: "2026-01-01T00:00:00.000Z", cwd: "/s" },
      });
      assert.equal(put.status, 201, put.text);
      const pushed = await t.call("POST", `/v1/sync/sessions/${synced}/entries`, {
        key,
        body: { entries: [userEntry("s1", null, { timestamp: 7 })] },
      });
      assert.equal(pushed.status, 200, pushed.text);
      const problems: string[] = [];
      for (const id of [imported.json.id as string, synced]) {
        const leaf = id === synced ? "?leafId=s1" : "";
        for (const [sub, template] of [
          ["/entries", "/v1/sessions/{id}/entries"],
          [`/branch${leaf}`, "/v1/sessions/{id}/branch"],
          ["/tree", "/v1/sessions/{id}/tree"],
        ] as const) {
          const r = await t.call("GET", `/v1/sessions/${id}${sub}`, { key });
          problems.push(...contract.problems("GET", template, r, id));
        }
      }
      assert.deepEqual(problems, []);
    });
  });

  describe(`contract hunt: conditional requests and pagination (${backend})`, () => {
    let t: TestServer;
    let contract: Contract;
    let alice: string;
    let bob: string;
    before(async () => {
      t = await startTestServer(backend);
      contract = await contractOf(t);
      alice = await t.key("alice");
      bob = await t.key("bob");
    });
    after(() => t.close());

    // Regression check. docs/server.md, Concurrency: writes accept `If-Match: "<revision>"`; a stale
    // one is `412 {"code":"conflict","currentRevision":N}` with the current ETag, and nothing is
    // written; Isolation: another user's session answers exactly like a missing one (so a stale
    // If-Match on it must not answer 412 and reveal its revision).
    it("every operation documenting If-Match: stale → 412 with the current revision, nothing written; foreign → 404", async () => {
      const conditional = contract
        .operations()
        .filter(({ op }) => (op.parameters ?? []).some((p) => p.in === "header" && p.name === "If-Match"));
      assert.ok(conditional.length >= 7, "the document lists its conditional writes");
      const s = (await t.call("POST", "/v1/sessions", { key: alice, body: { cwd: "/c" } })).json;
      const a = await t.call("POST", `/v1/sessions/${s.id}/entries`, {
        key: alice,
        body: { entries: [userMessage("one"), userMessage("two")] },
      });
      const [e1] = a.json.appended as [string];
      const bodies: Record<string, unknown> = {
        "/v1/sessions/{id}": { name: "n" },
        "/v1/sessions/{id}/entries": { entries: [userMessage("three")] },
        "/v1/sessions/{id}/leaf": { leafId: e1 },
        "/v1/sessions/{id}/branches": { fromId: e1, summary: "s" },
        "/v1/sessions/{id}/labels": { targetId: e1, label: "l" },
      };
      const problems: string[] = [];
      for (const { method, template } of conditional) {
        const path = template.replace("{id}", s.id);
        const before = (await t.call("GET", `/v1/sessions/${s.id}?includeDeleted=true`, { key: alice })).json;
        const options = { body: bodies[template], headers: { "if-match": `"${before.revision - 1}"` } };
        const stale = await t.call(method.toUpperCase(), path, { key: alice, ...options });
        const label = `${method.toUpperCase()} ${template}`;
        problems.push(...contract.problems(method.toUpperCase(), template, stale, "stale If-Match"));
        if (stale.status !== 412 || stale.json?.code !== "conflict")
          problems.push(`${label}: stale If-Match answered ${stale.status} ${stale.text}`);
        if (
          stale.json?.currentRevision !== before.revision ||
          stale.headers.get("etag") !== `"${before.revision}"`
        )
          problems.push(`${label}: 412 names ${stale.json?.currentRevision} / ${stale.headers.get("etag")}`);
        const afterwards = (await t.call("GET", `/v1/sessions/${s.id}?includeDeleted=true`, { key: alice }))
          .json;
        if (afterwards.revision !== before.revision)
          problems.push(`${label}: a stale write changed the session`);
        const foreign = await t.call(method.toUpperCase(), path, { key: bob, ...options });
        if (
          foreign.status !== 404 ||
          foreign.json?.code !== "session_not_found" ||
          foreign.headers.get("etag")
        )
          problems.push(`${label}: another user's stale If-Match answered ${foreign.status} ${foreign.text}`);
      }
      assert.deepEqual(problems, []);
    });

    // Regression check. /openapi.json: listSessions `limit` is an integer 1..1000, `cursor` a string
    // of at most 1024; readEntries `after` ≥ 0, `limit` 1..5000; docs/server.md: an integer
    // parameter written otherwise is 400 invalid_request, never a 5xx. Walking the pages visits each
    // item once, newest first; entry pages go by storage position, so appends landing while a
    // client pages neither repeat nor skip an entry.
    it("pages sessions and entries without repeats or gaps, and refuses out-of-range paging with a documented 400", async () => {
      const problems: string[] = [];
      const queries = [
        "limit=0",
        "limit=1001",
        "limit=-1",
        "limit=1.5",
        "limit=",
        "limit=ten",
        "cursor=not-a-cursor",
        `cursor=${Buffer.from("[1,2]").toString("base64url")}`,
        `cursor=${"a".repeat(1025)}`,
        "state=trash",
      ];
      for (const query of queries) {
        const r = await t.call("GET", `/v1/sessions?${query}`, { key: alice });
        problems.push(...contract.problems("GET", "/v1/sessions", r, query));
        if (r.status !== 400) problems.push(`GET /v1/sessions?${query}: ${r.status}`);
      }
      const ids = new Set<string>();
      for (let i = 0; i < 9; i++)
        ids.add((await t.call("POST", "/v1/sessions", { key: bob, body: { name: `s${i}` } })).json.id);
      const all = (await t.call("GET", "/v1/sessions?limit=1000", { key: bob })).json.items as Json[];
      for (const limit of [1, 2, 4, 1000]) {
        const walked: Json[] = [];
        let cursor: string | null = null;
        do {
          const q: string = cursor ? `&cursor=${cursor}` : "";
          const page = await t.call("GET", `/v1/sessions?limit=${limit}${q}`, { key: bob });
          problems.push(...contract.problems("GET", "/v1/sessions", page, `limit ${limit}`));
          walked.push(...page.json.items);
          cursor = page.json.nextCursor;
        } while (cursor !== null);
        assert.deepEqual(
          walked.map((x) => x.id),
          all.map((x) => x.id),
          `limit ${limit}: every session once, in the one order`,
        );
      }
      assert.deepEqual(new Set(all.map((x) => x.id)), ids);
      const bobsCursor = (await t.call("GET", "/v1/sessions?limit=1", { key: bob })).json.nextCursor;
      const aliceWithIt = await t.call("GET", `/v1/sessions?limit=5&cursor=${bobsCursor}`, { key: alice });
      assert.equal(aliceWithIt.status, 200);
      assert.ok(
        (aliceWithIt.json.items as Json[]).every((x) => !ids.has(x.id as string)),
        "another user's cursor shows none of that user's sessions",
      );

      const s = (await t.call("POST", "/v1/sessions", { key: alice, body: {} })).json;
      const E = `/v1/sessions/${s.id}/entries`;
      for (const query of ["after=-1", "limit=0", "limit=5001", "after=1.0", "after=x"]) {
        const r = await t.call("GET", `${E}?${query}`, { key: alice });
        problems.push(...contract.problems("GET", "/v1/sessions/{id}/entries", r, query));
        if (r.status !== 400) problems.push(`GET …/entries?${query}: ${r.status}`);
      }
      const batch = (n: number, tag: string) =>
        Array.from({ length: n }, (_, i) => userMessage(`${tag}${i}`));
      await t.call("POST", E, { key: alice, body: { entries: batch(40, "early") } });
      const seen: string[] = [];
      let afterAt = 0;
      for (let round = 0; ; round++) {
        const [page] = await Promise.all([
          t.call("GET", `${E}?after=${afterAt}&limit=7`, { key: alice }),
          round < 6 ? t.call("POST", E, { key: alice, body: { entries: batch(3, `late${round}-`) } }) : null,
        ]);
        problems.push(...contract.problems("GET", "/v1/sessions/{id}/entries", page, `after ${afterAt}`));
        seen.push(...(page.json.entries as Json[]).map((e) => e.id as string));
        if (page.json.nextAfter === null) break;
        afterAt = page.json.nextAfter;
      }
      const stored = (await t.call("GET", `${E}?limit=5000`, { key: alice })).json.entries as Json[];
      assert.deepEqual(
        seen,
        stored.map((e) => e.id),
        "each entry once, in storage order",
      );
      assert.equal(stored.length, 58);
      assert.deepEqual(problems, []);
    });

    // Defect (PostgreSQL). /openapi.json: readEntries `after` is an integer ≥ 0 with no maximum,
    // and a position past the end is an empty page with nextAfter null (as SQLite answers). On
    // PostgreSQL a position past 2^31 - 1 reaches `seq > $2` against the integer column
    // (store/postgres/sql.ts entriesInOrder): 22003 numeric_value_out_of_range, answered 400
    // invalid_argument "The request holds data the database cannot store" — one request, two
    // answers by backend.
    it("answers a position past the end with an empty page on every backend", async () => {
      const s = (await t.call("POST", "/v1/sessions", { key: alice, body: {} })).json;
      const answers: string[] = [];
      for (const after of ["2147483647", "2147483648", "999999999999999"]) {
        const r = await t.call("GET", `/v1/sessions/${s.id}/entries?after=${after}`, { key: alice });
        answers.push(`after=${after}: ${r.status} ${r.text}`);
        if (r.status !== 200 || r.json.nextAfter !== null || r.json.entries.length !== 0)
          assert.fail(answers.join("\n"));
      }
    });
  });
}

describe("contract hunt: statuses, parameters and semantics (sqlite)", () => {
  let t: TestServer;
  let contract: Contract;
  let key: string;
  before(async () => {
    t = await startTestServer("sqlite");
    contract = await contractOf(t);
    key = await t.key("alice");
  });
  after(() => t.close());

  const newSession = async () => (await t.call("POST", "/v1/sessions", { key, body: { cwd: "/w" } })).json;

  // Contract (a defect until fixed with this test): An outside harness checks that every status an operation answers is listed for it in
  // /openapi.json. Produced here with documented server settings (docs/server.md: 409
  // too_many_keys, 403 user_disabled, 403 quota_exceeded, the 8 MiB JSON body limit → 413, wrong
  // content type → 415), none of these is listed: createKey and syncState document only
  // 200/201, 400, 401, 429 (routes/keys.ts, routes/sync.ts use AUTH_ERRORS), and no operation lists
  // 403 (routes/common.ts AUTH_ERRORS / WRITE_ERRORS).
  it("documents every status it answers (409/413/415 on createKey and syncState, 403 everywhere)", async () => {
    // Small limits, so each status is cheap to reach: the statuses are the ones the defaults give.
    const q = await startTestServer("sqlite", {
      keys: { maxPerUser: 3 },
      quotas: { maxSessions: 3 },
      limits: { maxBodyBytes: 4096 },
    });
    try {
      await documentsEveryStatus(q);
    } finally {
      await q.close();
    }
  });

  async function documentsEveryStatus(t: TestServer): Promise<void> {
    const key = await t.key("alice");
    const problems: string[] = [];
    const check = (method: string, template: string, r: CallResult, label: string) =>
      problems.push(...contract.problems(method, template, r, label));
    const asText = { "content-type": "text/plain" };
    check("POST", "/v1/keys", await t.call("POST", "/v1/keys", { key, raw: "{}", headers: asText }), "415");
    check(
      "POST",
      "/v1/sync/state",
      await t.call("POST", "/v1/sync/state", { key, raw: '{"digest":""}', headers: asText }),
      "415",
    );
    const big = { name: "x".repeat(8192) };
    check("POST", "/v1/keys", await t.call("POST", "/v1/keys", { key, body: big }), "413");
    check(
      "POST",
      "/v1/sync/state",
      await t.call("POST", "/v1/sync/state", { key, body: { digest: "0".repeat(8192) } }),
      "413",
    );
    for (let i = 0; i < 3; i++) await t.call("POST", "/v1/keys", { key, body: {} });
    check("POST", "/v1/keys", await t.call("POST", "/v1/keys", { key, body: {} }), "too many keys");
    for (let i = 0; i < 4; i++) {
      const r = await t.call("POST", "/v1/sessions", { key, body: {} });
      if (r.status !== 201) check("POST", "/v1/sessions", r, "quota");
    }
    const carol = await t.key("carol");
    await t.server.services.db.disableUser({
      userId: "carol",
      disabledAt: new Date().toISOString(),
      reason: "t",
    });
    check("GET", "/v1/sessions", await t.call("GET", "/v1/sessions", { key: carol }), "user disabled");
    assert.deepEqual(problems, []);
  }

  // Contract (a defect until fixed with this test): docs/server.md, Concurrency: "Writes accept If-Match … when it is stale the answer is
  // 412"; RFC 9110 §13.1.1: an origin server receiving If-Match evaluates it before performing the
  // method. POST …/purge, the one write that destroys, drops the header (routes/sessions.ts
  // purgeSession is not `conditional` and passes `ifMatch: undefined`): a client that purges
  // "the session as I saw it" purges whatever it has become.
  it("refuses a purge whose If-Match is stale, and keeps the session", async () => {
    const s = await newSession();
    await t.call("POST", `/v1/sessions/${s.id}/entries`, {
      key,
      body: { entries: [userMessage("keep me")] },
    });
    const r = await t.call("POST", `/v1/sessions/${s.id}/purge`, {
      key,
      headers: { "if-match": `"${s.revision}"` },
    });
    const still = await t.call("GET", `/v1/sessions/${s.id}`, { key });
    assert.deepEqual(
      [r.status, still.status],
      [412, 200],
      `purge with a stale If-Match answered ${r.status}`,
    );
  });

  // Contract (a defect until fixed with this test): docs/server.md, "Limits and bad input": "unknown parent, leaf or label target → 4xx
  // (entry_not_found / invalid_entry)". POST …/labels checks its target; a `label` entry sent
  // through POST …/entries is stored with any targetId (core/validate.ts only checks it is a
  // string, the store checks parents only), and GET …/labels then lists a label of an entry that
  // does not exist.
  it("refuses a label entry whose target does not exist, on the append route too", async () => {
    const s = await newSession();
    const r = await t.call("POST", `/v1/sessions/${s.id}/entries`, {
      key,
      body: { entries: [{ type: "label", targetId: "no-such-entry", label: "ghost" }] },
    });
    const labels = (await t.call("GET", `/v1/sessions/${s.id}/labels`, { key })).json.labels;
    assert.deepEqual(
      [r.status >= 400 && r.status < 500, labels],
      [true, {}],
      `append answered ${r.status}; labels ${JSON.stringify(labels)}`,
    );
  });

  // Contract (a defect until fixed with this test): /openapi.json: getContext's `model` is null or { provider: string, modelId: string }.
  // An assistant message needs only a role to be appended (core/validate.ts ENTRY_RULES.message),
  // and core/context.ts modelOf copies its `provider` / `model` as they are: without them the
  // answer's model is `{}`; with a number, `modelId` is a number.
  it("answers context.model in the documented shape whatever the assistant message holds", async () => {
    const problems: string[] = [];
    for (const fields of [{}, { provider: "p", model: 5 }]) {
      const s = await newSession();
      const assistant = {
        role: "assistant",
        content: [{ type: "text", text: "hi" }],
        timestamp: 2,
        ...fields,
      };
      const appended = await t.call("POST", `/v1/sessions/${s.id}/entries`, {
        key,
        body: { entries: [userMessage("hello"), { type: "message", message: assistant }] },
      });
      assert.equal(appended.status, 200, appended.text);
      const r = await t.call("GET", `/v1/sessions/${s.id}/context`, { key });
      problems.push(...contract.problems("GET", "/v1/sessions/{id}/context", r, JSON.stringify(fields)));
    }
    assert.deepEqual(problems, []);
  });

  // Contract (a defect until fixed with this test): /openapi.json: every token and cost figure of getSessionStats / getStats is a number.
  // Usage figures are summed as they come (src/format/stats*.ts); finite inputs the API accepts
  // (1e308 + 1e308) overflow to Infinity, which JSON writes as null.
  it("answers stats figures as numbers, never null, for any usage the API accepted", async () => {
    const s = await newSession();
    const usage = {
      input: 1e308,
      output: 1e308,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 1e308,
      cost: { input: 1e308, output: 1e308, cacheRead: 0, cacheWrite: 0, total: 1e308 },
    };
    const message = { role: "assistant", content: [], provider: "p", model: "m", usage, timestamp: 2 };
    const appended = await t.call("POST", `/v1/sessions/${s.id}/entries`, {
      key,
      body: { entries: [userMessage("hello"), { type: "message", message }] },
    });
    assert.equal(appended.status, 200, appended.text);
    const r = await t.call("GET", `/v1/sessions/${s.id}/stats`, { key });
    assert.deepEqual(contract.problems("GET", "/v1/sessions/{id}/stats", r), []);
  });

  // Contract (a defect until fixed with this test): docs/server.md, Stats: `since` is "a date (2026-01-31, UTC midnight)"; the same docs
  // refuse parameters that would be silently read as something else (limit=1.5 → 400), and
  // work/stats-reads.ts sinceOf means to answer 400 "no such date". Date.parse rolls a day past
  // the month's end over (2026-02-30 is read as 2026-03-02), so a date that does not exist is
  // answered as another one.
  it("refuses a since date that does not exist instead of reading another day", async () => {
    const s = await newSession();
    const answers: string[] = [];
    for (const since of ["2026-02-30", "2026-04-31"]) {
      for (const path of [`/v1/stats?since=${since}`, `/v1/sessions/${s.id}/stats?since=${since}`]) {
        const r = await t.call("GET", path, { key });
        answers.push(`${path.split("?")[0]} ${since}: ${r.status} since=${r.json?.since ?? r.json?.code}`);
        assert.equal(r.status, 400, answers.join("\n"));
      }
    }
  });

  // Contract (a defect until fixed with this test): /openapi.json publishes the id parameters with the pattern ^[A-Za-z0-9._:-]{1,128}$,
  // which admits "." and ".." (schemas.ts SafeId), while core's isSafeId refuses both. A URL path
  // segment "." or ".." (or %2E) is a dot segment that every URL parser removes (RFC 3986 §5.2.4),
  // so a request built from the document for id "." reaches another operation: GET
  // /v1/sessions/. is GET /v1/sessions/ (the list, not a SessionSummary), and the typed client's
  // getSession(".") resolves with that page (encodeURIComponent leaves dots alone).
  it("publishes only ids that address the operation, and the client never reads a list as a summary", async () => {
    const op = contract.operation("GET", "/v1/sessions/{id}");
    const schema = op?.parameters?.find((p) => p.name === "id")?.schema;
    assert.ok(schema);
    const valid = contract.validator(schema);
    const client = new SessionTreeClient({ baseUrl: t.url, token: key });
    let read: unknown;
    try {
      read = await client.getSession(".");
    } catch (error) {
      read = error instanceof SessionTreeApiError ? error.code : error;
    }
    assert.deepEqual(
      [valid("."), valid(".."), typeof read === "object" && read !== null && "items" in read],
      [false, false, false],
      `the document admits "." / "..": ${valid(".")} / ${valid("..")}; client.getSession(".") gave ${JSON.stringify(read).slice(0, 120)}`,
    );
  });

  // Defect (minor). docs/server.md: "wrong method → 405 with Allow"; RFC 9110 §15.5.6: Allow lists
  // the target resource's supported methods, and docs/server.md: "a HEAD of any route answers the
  // GET's status and headers" — every GET resource serves HEAD, yet app.ts notFound lists only the
  // declared methods.
  it("a 405's Allow lists HEAD wherever GET is allowed", async () => {
    const s = await newSession();
    const head = await fetch(`${t.url}/v1/sessions/${s.id}/tree`, {
      method: "HEAD",
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(head.status, 200, "HEAD is served");
    const r = await t.call("PUT", `/v1/sessions/${s.id}/tree`, { key });
    assert.equal(r.status, 405);
    const allow = (r.headers.get("allow") ?? "").split(/\s*,\s*/);
    assert.ok(allow.includes("GET") && allow.includes("HEAD"), `Allow: ${r.headers.get("allow")}`);
  });

  // Regression check. docs/server.md: "Errors from the client are SessionTreeApiError with status,
  // code and, on 412, currentRevision"; every client method reads what the server sends.
  it("client: every method's answer validates against the document, errors carry status, code, currentRevision", async () => {
    const erin = await t.key("erin");
    const c = new SessionTreeClient({ baseUrl: `${t.url}/`, token: erin });
    const problems: string[] = [];
    const expect = (template: string, method: string, value: unknown, status = 200) => {
      const r = { status, json: value, text: JSON.stringify(value), headers: new Headers() } as CallResult;
      problems.push(...contract.problems(method, template, r, "client"));
    };
    const s = await c.createSession({ cwd: "/c", name: "client" });
    expect("/v1/sessions", "POST", s, 201);
    const a = await c.append(s.id, [userMessage("hello client")], {
      ifMatch: s.revision,
      idempotencyKey: "c-1",
    });
    expect("/v1/sessions/{id}/entries", "POST", a);
    const [e1] = a.appended as [string];
    expect("/v1/sessions", "GET", await c.listSessions({ limit: 2, state: "all" }));
    expect("/v1/sessions/{id}", "GET", await c.getSession(s.id, { includeDeleted: true }));
    expect("/v1/sessions/{id}", "PATCH", await c.renameSession(s.id, "renamed"));
    expect("/v1/sessions/{id}/entries", "GET", await c.readEntries(s.id, { after: 0, limit: 10 }));
    expect("/v1/sessions/{id}/branch", "GET", await c.readBranch(s.id, e1));
    expect("/v1/sessions/{id}/leaf", "PUT", await c.setLeaf(s.id, e1));
    expect("/v1/sessions/{id}/branches", "POST", await c.branch(s.id, e1, { summary: "s" }));
    expect("/v1/sessions/{id}/labels", "POST", await c.setLabel(s.id, e1, "L"));
    expect("/v1/sessions/{id}/labels", "GET", await c.getLabels(s.id));
    expect("/v1/sessions/{id}/context", "GET", await c.getContext(s.id, e1));
    expect("/v1/sessions/{id}/tree", "GET", await c.getTree(s.id));
    expect("/v1/sessions/{id}/stats", "GET", await c.sessionStats(s.id, { since: "7d", idle: 3 }));
    expect("/v1/stats", "GET", await c.stats({ by: "model" }));
    expect("/v1/search", "GET", await c.search("hello", { limit: 3 }));
    expect("/v1/sessions/import", "POST", await c.importJsonl(await c.exportJsonl(s.id)), 201);
    expect("/v1/keys", "GET", await c.listKeys());
    expect("/v1/sync/state", "POST", await c.syncState(""));
    expect(
      "/v1/sync/sessions/{id}",
      "PUT",
      await c.putSyncSession("c-copy", { timestamp: "2026-01-01T00:00:00Z", cwd: "/" }),
      201,
    );
    expect("/v1/sync/sessions/{id}/entries", "POST", await c.syncAppend("c-copy", [userEntry("k1", null)]));
    expect("/v1/sessions/{id}", "DELETE", await c.deleteSession(s.id));
    expect("/v1/sessions/{id}/restore", "POST", await c.restoreSession(s.id));
    expect("/v1/deletions", "GET", await c.listDeletions(5));
    const failure = async (call: () => Promise<unknown>) => {
      try {
        await call();
      } catch (error) {
        return error instanceof SessionTreeApiError ? error : undefined;
      }
      return undefined;
    };
    const stale = await failure(() => c.setLeaf(s.id, null, { ifMatch: 1 }));
    const current = await c.getSession(s.id);
    assert.deepEqual(
      [stale?.status, stale?.code, stale?.currentRevision],
      [412, "conflict", current.revision],
    );
    const missing = await failure(() => c.getTree("01a00000-0000-7000-8000-000000000000"));
    assert.deepEqual([missing?.status, missing?.code], [404, "session_not_found"]);
    const bad = await failure(() => c.readEntries(s.id, { limit: 0 }));
    assert.deepEqual([bad?.status, bad?.code], [400, "invalid_request"]);
    await c.purgeSession(s.id);
    const gone = await failure(() => c.getSession(s.id, { includeDeleted: true }));
    assert.equal(gone?.status, 404);
    assert.deepEqual(problems, []);
  });
});
