import { Type } from "@sinclair/typebox";
import { buildOpenApi } from "../http/openapi.js";
import { type AnyRoute, defineRoute } from "../http/route.js";
import { Health } from "../schemas.js";

export const health = defineRoute({
  method: "get",
  path: "/healthz",
  operationId: "health",
  summary: "Liveness: answers without a credential",
  tag: "meta",
  public: true,
  responses: { 200: { description: "Up", schema: Health } },
  async handle({ services }) {
    return { body: { ok: true, store: services.store.kind } };
  },
});

/** The document lists itself too: it is built from the same table the app registers. */
export function openApiRoute(routes: () => readonly AnyRoute[], version: string): AnyRoute {
  let cached: unknown;
  return defineRoute({
    method: "get",
    path: "/openapi.json",
    operationId: "openapi",
    summary: "This API's OpenAPI 3.1 document",
    tag: "meta",
    public: true,
    responses: {
      200: { description: "The document", schema: Type.Object({}, { additionalProperties: true }) },
    },
    async handle() {
      cached ??= buildOpenApi(routes(), version);
      return { body: cached };
    },
  });
}
