import type { Hono } from "hono";
import type { SessionStore } from "../store/store.js";
import type { JwtOptions } from "./auth/authenticate.js";
import type { RateLimitOptions } from "./limits/rate-limit.js";
import type { ServerServices } from "./services.js";

/** Size and count limits at the edge; each breach is a 413 (or 400) with a JSON error. */
export interface Limits {
  /** Largest JSON request body. @default 8 MiB */
  maxBodyBytes: number;
  /** Largest JSONL import body. @default 64 MiB */
  maxImportBytes: number;
  /** Largest single entry, serialized. @default 2 MiB */
  maxEntryBytes: number;
  /** Most entries in one append. @default 1000 */
  maxEntriesPerRequest: number;
}

export interface ServerOptions {
  /** Port to listen on; 0 picks a free one. @default 7373 */
  port?: number;
  /** @default "127.0.0.1" (loopback only) */
  host?: string;
  /** Data folder for the embedded SQLite database. @default "./.sessiontree" */
  data?: string;
  /** `postgres://…`: use PostgreSQL instead of the embedded SQLite. */
  database?: string;
  /** PostgreSQL connections per instance (store and server tables share them). @default 10 */
  poolSize?: number;
  /** An already opened store (tests, embedding); the server's own tables then need `database` or `data`. */
  store?: SessionStore;
  /** Purge sessions soft-deleted longer ago than this, on a timer. Off unless set. */
  retentionDays?: number;
  /** @default 3_600_000 (hourly) */
  retentionIntervalMs?: number;
  jwt?: JwtOptions;
  /** Per-credential token bucket; false turns it off. @default { perSecond: 100, burst: 200 } */
  rateLimit?: RateLimitOptions | false;
  limits?: Partial<Limits>;
  /** How long an Idempotency-Key is remembered. @default 86_400_000 (24 h) */
  idempotencyTtlMs?: number;
  /**
   * Mounts extra routes (e.g. the tree viewer) on the app before the 404 handler. They are outside
   * /openapi.json and do their own auth, with `services.auth` if they need it.
   */
  extend?: (app: Hono, services: ServerServices) => void;
}

export const DEFAULT_LIMITS: Limits = Object.freeze({
  maxBodyBytes: 8 * 1024 * 1024,
  maxImportBytes: 64 * 1024 * 1024,
  maxEntryBytes: 2 * 1024 * 1024,
  maxEntriesPerRequest: 1000,
});

export const DEFAULT_RATE_LIMIT: RateLimitOptions = Object.freeze({ perSecond: 100, burst: 200 });
export const DEFAULT_PORT = 7373;
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_DATA = "./.sessiontree";
