import type { TObject, TSchema } from "@sinclair/typebox";
import type { AnyRoute } from "./route.js";

type Json = Record<string, unknown>;

/** A plain JSON Schema copy of a TypeBox schema (drops TypeBox's symbols and nested `$id`s). */
function plain(schema: TSchema): Json {
  return JSON.parse(JSON.stringify(schema, (key, value) => (key === "$id" ? undefined : value)));
}

/** Hono's `/v1/sessions/:id` → OpenAPI's `/v1/sessions/{id}`. */
function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

function parameters(route: AnyRoute): Json[] {
  const list: Json[] = [];
  const add = (schema: TObject | undefined, where: "path" | "query") => {
    if (!schema) return;
    const required = new Set(schema.required ?? []);
    for (const [name, property] of Object.entries(schema.properties)) {
      list.push({
        name,
        in: where,
        required: where === "path" || required.has(name),
        schema: plain(property),
      });
    }
  };
  add(route.params, "path");
  add(route.query, "query");
  if (route.conditional) {
    const description = 'Expected revision, e.g. "7": a stale one answers 412 with currentRevision';
    list.push({ name: "If-Match", in: "header", required: false, description, schema: { type: "string" } });
  }
  if (route.revisioned) {
    const description =
      'A revision the client holds, e.g. "7": while it is current the answer is 304, no body';
    list.push({
      name: "If-None-Match",
      in: "header",
      required: false,
      description,
      schema: { type: "string" },
    });
  }
  if (route.idempotent) {
    const description = "Retries with the same key replay the first response (kept 24 h)";
    list.push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description,
      schema: { type: "string" },
    });
  }
  return list;
}

function operation(route: AnyRoute): Json {
  const responses: Json = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    const response: Json = { description: spec.description };
    if (spec.schema)
      response.content = { [spec.contentType ?? "application/json"]: { schema: plain(spec.schema) } };
    responses[status] = response;
  }
  if (route.revisioned)
    responses["304"] = { description: "Not modified: If-None-Match names the current revision" };
  const op: Json = {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    parameters: parameters(route),
    responses,
  };
  if (route.body) {
    const type = route.bodyFormat === "jsonl" ? "application/x-ndjson" : "application/json";
    op.requestBody = { required: true, content: { [type]: { schema: plain(route.body) } } };
  }
  if (route.public) op.security = [];
  return op;
}

/** The OpenAPI 3.1 document of exactly the routes the app registers. */
export function buildOpenApi(routes: readonly AnyRoute[], version: string): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    (paths[path] as Json)[route.method] = operation(route);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "sessiontree",
      version,
      description:
        "Agent sessions as append-only trees, per user: pi-compatible entries, revisions as ETags.",
    },
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    security: [{ bearer: [] }],
    paths,
  };
}
