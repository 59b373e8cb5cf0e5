/**
 * sessiontree/server: the multi-tenant HTTP service over a SessionStore.
 *
 * What is public: `createServer` and its options; the types an `extend` hook receives
 * (`ServerServices`, `Principal`); and the administration that runs without a server (API keys,
 * retention purges, opening the databases), which the `keys` and `purge-deleted` commands use.
 *
 * @example
 * import { createServer } from "sessiontree/server";
 * const server = await createServer({ database: process.env.DATABASE_URL, retentionDays: 30 });
 * await server.listen();
 */
export type { JwtOptions } from "./auth/authenticate.js";
export { createApiKey } from "./auth/key-admin.js";
export type { Principal } from "./auth/principal.js";
export { type Backends, openBackends, openServiceDb } from "./backends.js";
export { createServer, type SessionTreeServer } from "./create-server.js";
export type { ApiKeyRow, DeletionRow, ServiceDb } from "./db/service-db.js";
export type { RateLimitOptions } from "./limits/rate-limit.js";
export type { Limits, ServerOptions } from "./options.js";
export { purgeExpiredSessions } from "./retention.js";
export type { ServerServices } from "./services.js";
