import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { apiRoutes } from "../../src/server/app.js";
import { startTestServer, type TestServer } from "./helpers.js";

type Json = Record<string, unknown>;
const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

/** Every `$ref` in the document must point at something inside it. */
function danglingRefs(doc: Json): string[] {
  const missing: string[] = [];
  const walk = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) {
        if (k === "$ref" && typeof v === "string") {
          const target = v
            .replace(/^#\//, "")
            .split("/")
            .reduce<unknown>((node, part) => (node as Json | undefined)?.[part], doc);
          if (target === undefined) missing.push(v);
        } else walk(v);
      }
    }
  };
  walk(doc);
  return missing;
}

describe("OpenAPI document", () => {
  let t: TestServer;
  let doc: Json;

  before(async () => {
    t = await startTestServer("sqlite");
    const r = await t.call("GET", "/openapi.json");
    assert.equal(r.status, 200);
    doc = r.json;
  });
  after(() => t.close());

  it("is a structurally valid OpenAPI 3.1 document", () => {
    assert.equal(doc.openapi, "3.1.0");
    const info = doc.info as Json;
    assert.equal(typeof info.title, "string");
    assert.equal(typeof info.version, "string");
    const paths = doc.paths as Record<string, Record<string, Json>>;
    const operationIds = new Set<string>();
    for (const [path, item] of Object.entries(paths)) {
      assert.ok(path.startsWith("/"), path);
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const [method, op] of Object.entries(item)) {
        assert.ok(METHODS.has(method), `${method} ${path}`);
        assert.equal(typeof op.operationId, "string");
        assert.ok(!operationIds.has(op.operationId as string), `duplicate operationId ${op.operationId}`);
        operationIds.add(op.operationId as string);
        const responses = op.responses as Record<string, Json>;
        assert.ok(Object.keys(responses).length > 0);
        for (const [status, response] of Object.entries(responses)) {
          assert.match(status, /^[1-5]\d\d$/);
          assert.equal(typeof response.description, "string");
        }
        const params = (op.parameters ?? []) as Json[];
        for (const p of params) assert.ok(["path", "query", "header", "cookie"].includes(p.in as string));
        const inPath = params.filter((p) => p.in === "path");
        assert.deepEqual(
          inPath.map((p) => p.name).sort(),
          [...templated].sort(),
          `path parameters of ${method} ${path}`,
        );
        assert.ok(inPath.every((p) => p.required === true));
        if (op.requestBody)
          assert.ok(Object.keys((op.requestBody as { content: Json }).content).length === 1);
      }
    }
    assert.deepEqual(danglingRefs(doc), []);
  });

  it("lists exactly the routes the app serves, and the app serves exactly those", () => {
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const method of Object.keys(item)) documented.add(`${method.toUpperCase()} ${path}`);
    }
    // Middleware (request id, CORS, access log, rate limits) is registered as `ALL /*`: not a route.
    const served = new Set(
      t.server.app.routes
        .filter((r) => !(r.method === "ALL" && r.path === "/*"))
        .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`),
    );
    const declared = new Set(
      apiRoutes().map((r) => `${r.method.toUpperCase()} ${r.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`),
    );
    assert.deepEqual([...documented].sort(), [...served].sort());
    assert.deepEqual([...declared].sort(), [...served].sort());
  });

  it("documents for each operation the statuses it answers in practice", async () => {
    const key = await t.key("alice");
    const created = await t.call("POST", "/v1/sessions", { key, body: {} });
    const paths = doc.paths as Record<string, Record<string, { responses: Json }>>;
    assert.ok(created.status in (paths["/v1/sessions"]?.post?.responses ?? {}));
    const missing = await t.call("GET", "/v1/sessions/nope", { key });
    assert.ok(missing.status in (paths["/v1/sessions/{id}"]?.get?.responses ?? {}));
    const stale = await t.call("PUT", `/v1/sessions/${created.json.id}/leaf`, {
      key,
      body: { leafId: null },
      headers: { "if-match": '"99"' },
    });
    assert.equal(stale.status, 412);
    assert.ok("412" in (paths["/v1/sessions/{id}/leaf"]?.put?.responses ?? {}));
  });
});

describe("extension hook", () => {
  it("mounts extra routes (the viewer) outside the API document, before the JSON 404", async () => {
    const t = await startTestServer("sqlite", {
      extend: (app, services) => {
        app.get("/viewer", (c) => c.html(`<p>${services.store.kind}</p>`));
      },
    });
    try {
      const page = await t.call("GET", "/viewer");
      assert.equal(page.status, 200);
      assert.equal(page.text, "<p>sqlite</p>");
      const doc = (await t.call("GET", "/openapi.json")).json;
      assert.equal(doc.paths["/viewer"], undefined);
      assert.equal((await t.call("GET", "/viewer/nope")).json.code, "route_not_found");
    } finally {
      await t.close();
    }
  });
});
