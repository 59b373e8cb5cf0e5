import type { SessionStore } from "../store/store.js";
import type { Authenticator } from "./auth/authenticate.js";
import type { ServiceDb } from "./db/service-db.js";
import type { RateLimiter } from "./limits/rate-limit.js";
import type { Limits } from "./options.js";
import type { SessionQueue } from "./session-queue.js";

/** Everything a route handler may use; built once per server. */
export interface ServerServices {
  store: SessionStore;
  db: ServiceDb;
  auth: Authenticator;
  limits: Limits;
  rateLimiter: RateLimiter | null;
  queue: SessionQueue;
  idempotencyTtlMs: number;
  now(): Date;
}
