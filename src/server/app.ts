import { Hono, type MiddlewareHandler } from "hono";
import { HttpError } from "./http/http-error.js";
import { registerRoute, sendError } from "./http/register.js";
import type { AnyRoute } from "./http/route.js";
import { opsMiddleware } from "./ops/middleware.js";
import { metricsRoute, readiness, versionRoute } from "./ops/ops-routes.js";
import type { ServerOptions } from "./options.js";
import { deletionRoutes } from "./routes/deletions.js";
import { entryRoutes } from "./routes/entries.js";
import { keyRoutes } from "./routes/keys.js";
import { health, openApiRoute } from "./routes/meta.js";
import { navigationRoutes } from "./routes/navigation.js";
import { searchSessions } from "./routes/search.js";
import { sessionRoutes } from "./routes/sessions.js";
import { statsRoutes } from "./routes/stats.js";
import { syncRoutes } from "./routes/sync.js";
import { transferRoutes } from "./routes/transfer.js";
import { viewRoutes } from "./routes/views.js";
import type { ServerServices } from "./services.js";

const API_VERSION = "1.0.0";

/** Every API route, in registration order; /openapi.json is generated from this same list. */
export function apiRoutes(): AnyRoute[] {
  const routes: AnyRoute[] = [
    health,
    readiness,
    versionRoute(API_VERSION),
    metricsRoute,
    ...transferRoutes,
    ...sessionRoutes,
    ...entryRoutes,
    ...navigationRoutes,
    ...viewRoutes,
    ...statsRoutes,
    ...keyRoutes,
    ...deletionRoutes,
    searchSessions,
    ...syncRoutes,
  ];
  routes.push(openApiRoute(() => routes, API_VERSION));
  return routes;
}

function pathPattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/:[A-Za-z0-9_]+/g, "[^/]+")}/?$`);
}

/** The Hono app: declared routes, then extensions (the viewer), then JSON 404/405 answers. */
export function buildApp(
  services: ServerServices,
  extend?: ServerOptions["extend"],
  limits?: MiddlewareHandler,
): Hono {
  // Not strict: `/v1/sessions/` is `/v1/sessions`, as clients and proxies often write it.
  const app = new Hono({ strict: false });
  // First: request id, CORS, access log and metrics see every request, the 404s too.
  app.use("*", opsMiddleware(services.ops));
  // Then rate limits per user and per client address (limits/request-limits.ts).
  if (limits) app.use("*", limits);
  const routes = apiRoutes();
  for (const route of routes) registerRoute(app, route, services);
  extend?.(app, services);

  const patterns = routes.map((route) => ({ route, pattern: pathPattern(route.path) }));
  app.notFound((c) => {
    const methods = patterns
      .filter((p) => p.pattern.test(c.req.path))
      .map((p) => p.route.method.toUpperCase());
    // Every GET also answers HEAD (http/register.ts): Allow lists what is served (RFC 9110 §10.2.1).
    const allowed = methods.includes("GET") ? [...methods, "HEAD"] : methods;
    if (allowed.length === 0) return sendError(c, new HttpError(404, "route_not_found", "No such route"));
    const error = new HttpError(405, "method_not_allowed", `Allowed: ${allowed.join(", ")}`, {
      Allow: allowed.join(", "),
    });
    return sendError(c, error);
  });
  app.onError((error, c) => sendError(c, error));
  return app;
}
