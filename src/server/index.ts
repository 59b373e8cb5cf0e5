/**
 * sessiontree/server: the multi-tenant HTTP service over a SessionStore.
 *
 * @example
 * import { createServer } from "sessiontree/server";
 * const server = await createServer({ database: process.env.DATABASE_URL, retentionDays: 30 });
 * await server.listen();
 */
export { API_VERSION, apiRoutes, buildApp } from "./app.js";
export type { JwtOptions } from "./auth/authenticate.js";
export { createApiKey } from "./auth/key-admin.js";
export type { Principal } from "./auth/principal.js";
export { openBackends, openServiceDb, sqliteFile } from "./backends.js";
export { createServer, type SessionTreeServer } from "./create-server.js";
export type { ApiKeyRow, DeletionRow, ServiceDb } from "./db/service-db.js";
export { buildOpenApi } from "./http/openapi.js";
export type { RateLimitOptions } from "./limits/rate-limit.js";
export { DEFAULT_LIMITS, type Limits, type ServerOptions } from "./options.js";
export { purgeExpiredSessions } from "./retention.js";
export type { ServerServices } from "./services.js";
