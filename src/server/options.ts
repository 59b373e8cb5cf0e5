import type { Hono } from "hono";
import type { SessionStore } from "../store/store.js";
import type { JwtOptions } from "./auth/authenticate.js";
import type { RateLimitOptions } from "./limits/rate-limit.js";
import type { OpsOptions } from "./ops/ops-options.js";
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
  /** Largest whole-session answer (tree, context, branch, export); past it 413, page instead. @default 64 MiB */
  maxResponseBytes: number;
  /** Whole-session reads one user may run at once; past it 429 + Retry-After (0 = no cap). @default 2 */
  maxHeavyReadsPerUser: number;
  /** Whole-session reads running at once in this instance; the others wait their turn (0 = no cap). @default 2 */
  maxHeavyReads: number;
}

/** OpsOptions: CORS, access log, quotas, key limits, timeouts (src/server/ops/ops-options.ts). */
export interface ServerOptions extends OpsOptions {
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
  /**
   * Where the SQL stores keep large payloads (images, text parts above 64 KiB) and archived
   * sessions: `file:FOLDER` or `s3://BUCKET/PREFIX`. @default `file:` in `<data>/blobs`
   */
  blobs?: string;
  /** For `s3://` blobs: an S3-compatible endpoint (MinIO, Ceph, R2); AWS when absent. */
  s3Endpoint?: string;
  /** For `s3://` blobs: path-style URLs. @default true when `s3Endpoint` is set */
  s3PathStyle?: boolean;
  /** Purge sessions soft-deleted longer ago than this, on a timer. Off unless set. */
  retentionDays?: number;
  /** @default 3_600_000 (hourly) */
  retentionIntervalMs?: number;
  jwt?: JwtOptions;
  /**
   * Token bucket per user (all their keys together), and per client address for requests without
   * a valid credential; false turns it off. @default { perSecond: 100, burst: 200 }
   */
  rateLimit?: RateLimitOptions | false;
  /** Reverse proxies in front whose X-Forwarded-For is believed for the client address. @default 0 */
  trustProxy?: number;
  /** PEM certificate chain and private key: serve HTTPS directly. */
  tls?: { cert: string; key: string };
  /** On close (SIGTERM): how long in-flight requests may take before connections are cut. @default 10_000 */
  shutdownGraceMs?: number;
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
  maxResponseBytes: 64 * 1024 * 1024,
  maxHeavyReadsPerUser: 2,
  maxHeavyReads: 2,
});

export const DEFAULT_RATE_LIMIT: RateLimitOptions = Object.freeze({ perSecond: 100, burst: 200 });
export const DEFAULT_PORT = 7373;
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_DATA = "./.sessiontree";
