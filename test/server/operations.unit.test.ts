import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createApiKey, createServer } from "../../src/server/index.js";
import { applyTimeouts } from "../../src/server/ops/timeouts.js";
import { MemoryStore } from "../../src/store/memory/index.js";
import { BACKENDS, call, startTestServer, type TestServer, userMessage } from "./helpers.js";

for (const backend of BACKENDS) {
  describe(`what an operator expects (issue 16.11-13) (${backend})`, () => {
    let t: TestServer;
    const lines: Array<Record<string, unknown>> = [];

    before(async () => {
      t = await startTestServer(backend, {
        accessLog: (line) => lines.push(JSON.parse(line)),
        corsOrigin: ["https://app.example"],
        quotas: { maxSessions: 2, maxEntries: 3, maxBytes: 50_000 },
      });
    });
    after(() => t.close());

    it("answers liveness, readiness and the version without a credential", async () => {
      assert.equal((await t.call("GET", "/healthz")).status, 200);
      const ready = await t.call("GET", "/readyz");
      assert.equal(ready.status, 200);
      assert.deepEqual(ready.json, { ok: true, database: backend });
      const version = await t.call("GET", "/version");
      assert.equal(version.status, 200);
      assert.match(version.json.version, /^\d+\.\d+\.\d+/);
      assert.equal(version.json.api, "1.0.0");
    });

    it("serves Prometheus metrics: requests by route and status, latency, store operations", async () => {
      const key = await t.key("metered");
      await t.call("GET", "/v1/sessions", { key });
      await t.call("GET", "/v1/sessions/nope", { key });
      const metrics = await t.call("GET", "/metrics");
      assert.equal(metrics.status, 200);
      assert.match(metrics.headers.get("content-type") ?? "", /^text\/plain/);
      assert.match(
        metrics.text,
        /sessiontree_http_requests_total\{method="GET",route="\/v1\/sessions",status="200"\} [1-9]/,
      );
      assert.match(metrics.text, /route="\/v1\/sessions\/:id",status="404"/, "by pattern, not by path");
      assert.match(metrics.text, /sessiontree_http_request_duration_seconds_bucket\{le="0.005",method="GET"/);
      assert.match(
        metrics.text,
        /sessiontree_store_operation_duration_seconds_count\{operation="listSessions",outcome="ok"\} [1-9]/,
      );
      assert.match(metrics.text, /sessiontree_build_info\{version="/);
    });

    it("echoes a well-formed X-Request-Id, replaces a malformed one, and logs one JSON line per request", async () => {
      const key = await t.key("logged");
      const given = await t.call("GET", "/v1/sessions", { key, headers: { "x-request-id": "trace-42.a:b" } });
      assert.equal(given.headers.get("x-request-id"), "trace-42.a:b");
      const bad = await t.call("GET", "/v1/sessions", {
        key,
        headers: { "x-request-id": "no spaces\tor tabs" },
      });
      const fresh = bad.headers.get("x-request-id") ?? "";
      assert.match(fresh, /^[0-9a-f-]{36}$/);
      const line = lines.find((l) => l.requestId === "trace-42.a:b");
      assert.ok(line, "the request's line");
      assert.equal(line.route, "/v1/sessions");
      assert.equal(line.user, "logged");
      assert.equal(line.status, 200);
      assert.equal(line.method, "GET");
      assert.equal(typeof line.durationMs, "number");
      assert.ok(lines.some((l) => l.requestId === fresh));
    });

    it("answers a CORS preflight for an allowed origin and refuses another", async () => {
      const preflight = await t.call("OPTIONS", "/v1/sessions", {
        headers: { origin: "https://app.example", "access-control-request-method": "POST" },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get("access-control-allow-origin"), "https://app.example");
      assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /Authorization/);
      const foreign = await t.call("OPTIONS", "/v1/sessions", {
        headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
      });
      assert.equal(foreign.status, 403);
      assert.equal(foreign.headers.get("access-control-allow-origin"), null);
      const actual = await t.call("GET", "/healthz", { headers: { origin: "https://app.example" } });
      assert.equal(actual.headers.get("access-control-allow-origin"), "https://app.example");
      assert.match(actual.headers.get("access-control-expose-headers") ?? "", /ETag/);
    });

    it("refuses writes past a user's quota with 403 quota_exceeded, and replays a keyed write that fit", async () => {
      const key = await t.key("quota");
      const keyed = { key, body: { cwd: "/q" }, headers: { "idempotency-key": "q-1" } };
      assert.equal((await t.call("POST", "/v1/sessions", keyed)).status, 201);
      const second = await t.call("POST", "/v1/sessions", { key, body: { cwd: "/q" } });
      assert.equal(second.status, 201);
      const third = await t.call("POST", "/v1/sessions", { key, body: { cwd: "/q" } });
      assert.equal(third.status, 403);
      assert.equal(third.json.code, "quota_exceeded");
      assert.equal(third.json.details.quota, "sessions");
      assert.equal((await t.call("POST", "/v1/sessions", keyed)).status, 201, "a retry replays");
      const entries = (n: number) => ({
        key,
        body: { entries: Array.from({ length: n }, (_, i) => userMessage(`m${i}`)) },
      });
      assert.equal((await t.call("POST", `/v1/sessions/${second.json.id}/entries`, entries(3))).status, 200);
      const over = await t.call("POST", `/v1/sessions/${second.json.id}/entries`, entries(1));
      assert.equal(over.status, 403);
      assert.equal(over.json.details.quota, "entries");
      const other = await t.key("quota-free");
      assert.equal(
        (await t.call("POST", "/v1/sessions", { key: other, body: { cwd: "/q" } })).status,
        201,
        "per user",
      );
    });

    it("sets the listener's timeouts, never a headers timeout above the request timeout", () => {
      const server = { requestTimeout: 300_000, headersTimeout: 60_000, keepAliveTimeout: 5_000 };
      applyTimeouts(server, { requestMs: 10_000, keepAliveMs: 2_000 });
      assert.deepEqual(server, { requestTimeout: 10_000, headersTimeout: 10_000, keepAliveTimeout: 2_000 });
    });
  });
}

describe("a 500 in the access log", () => {
  it("is one line with the route and the request id, and no bare stack on stderr", async () => {
    const dir = mkdtempSync(join(tmpdir(), "st-ops-"));
    const store = new MemoryStore();
    store.listSessions = async () => {
      throw new Error("the disk caught fire");
    };
    const lines: string[] = [];
    const server = await createServer({
      port: 0,
      store,
      data: dir,
      rateLimit: false,
      accessLog: (l) => lines.push(l),
    });
    const stderr = process.stderr.write;
    const printed: string[] = [];
    process.stderr.write = ((chunk: string) => {
      printed.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      const { url } = await server.listen();
      const { key } = await createApiKey(server.services.db, "ann", "t");
      const failed = await call(url, "GET", "/v1/sessions", { key, headers: { "x-request-id": "boom-1" } });
      assert.equal(failed.status, 500);
      assert.equal(failed.json.code, "internal");
      assert.doesNotMatch(failed.text, /fire/, "the client learns nothing of the internals");
      const line = JSON.parse(lines.find((l) => l.includes("boom-1")) ?? "{}");
      assert.equal(line.level, "error");
      assert.equal(line.route, "/v1/sessions");
      assert.equal(line.status, 500);
      assert.equal(line.error.message, "the disk caught fire");
      assert.deepEqual(printed, [], "nothing else printed");
    } finally {
      process.stderr.write = stderr;
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
