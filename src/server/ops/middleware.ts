import type { MiddlewareHandler } from "hono";
import { startRequest } from "../http/request-facts.js";
import { accessLine } from "./access-log.js";
import { allowedOrigin, corsPreflightHeaders, corsResponseHeaders, isPreflight } from "./cors.js";
import type { Ops } from "./ops.js";

/**
 * First on every request: a request id (the client's X-Request-Id when well-formed, echoed back),
 * CORS, and after the answer one access-log line and the request metrics. Routes fill in the
 * route pattern, the user and a 5xx's cause (http/register.ts).
 */
export function opsMiddleware(ops: Ops): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    const facts = startRequest(c.req.raw);
    const origin = ops.cors ? allowedOrigin(ops.cors, c.req.header("origin")) : null;
    if (ops.cors && isPreflight(c.req.method, c.req.raw.headers)) {
      facts.route = "preflight";
      const headers = { "X-Request-Id": facts.requestId, ...(origin ? corsPreflightHeaders(origin) : {}) };
      // An origin not allowed gets no CORS headers: the browser then refuses the call.
      c.res = new Response(null, { status: origin ? 204 : 403, headers });
    } else {
      await next();
      // Reading `c.res.headers` turns a lightweight response into a full one: only when needed.
      if (!facts.idInResponse) c.res.headers.set("X-Request-Id", facts.requestId);
      if (origin)
        for (const [name, value] of Object.entries(corsResponseHeaders(origin)))
          c.res.headers.set(name, value);
    }
    const durationMs = performance.now() - started;
    const status = c.res.status;
    ops.metrics.observeRequest(c.req.method, facts.route ?? "other", status, durationMs / 1000);
    const sink = ops.accessLog ?? (status >= 500 ? ops.errorLog : null);
    if (sink)
      sink(JSON.stringify(accessLine({ facts, method: c.req.method, path: c.req.path, status, durationMs })));
  };
}
