import type { Hono } from "hono";
import { buildApp } from "./app.js";
import { openBackends } from "./backends.js";
import { requestLimits } from "./limits/request-limits.js";
import { SharedAuthenticator } from "./limits/shared-auth.js";
import { type Listener, listen } from "./listen/listener.js";
import {
  DEFAULT_HOST,
  DEFAULT_LIMITS,
  DEFAULT_PORT,
  DEFAULT_RATE_LIMIT,
  DEFAULT_SHUTDOWN_GRACE_MS,
  type ServerOptions,
} from "./options.js";
import { purgeExpiredSessions, startTimer } from "./retention.js";
import type { ServerServices } from "./services.js";
import { SessionQueue } from "./session-queue.js";

export interface SessionTreeServer {
  readonly app: Hono;
  readonly services: ServerServices;
  /** Starts listening; resolves with the base URL (e.g. http://127.0.0.1:7373). */
  listen(): Promise<{ url: string; port: number }>;
  /** The base URL once listening. */
  readonly url: string | undefined;
  /** Runs retention now (needs `retentionDays`, or pass the days). */
  purgeExpired(retentionDays?: number): Promise<Array<{ owner: string; sessionId: string }>>;
  /**
   * Stops accepting connections, lets in-flight requests finish (up to `shutdownGraceMs`, then
   * cuts the connections left), stops timers and closes the databases. Safe to call twice.
   */
  close(): Promise<void>;
}

/**
 * Opens the databases and builds the HTTP service. Stateless apart from per-instance caches
 * (rate-limit buckets, the write queue), so several instances may share one PostgreSQL.
 *
 * @example
 * const server = await createServer({ data: "./.sessiontree", port: 7373 });
 * const { url } = await server.listen();
 */
export async function createServer(options: ServerOptions = {}): Promise<SessionTreeServer> {
  const backends = await openBackends(options);
  const auth = new SharedAuthenticator(backends.db, options.jwt);
  const services: ServerServices = {
    store: backends.store,
    db: backends.db,
    auth,
    limits: Object.freeze({ ...DEFAULT_LIMITS, ...options.limits }),
    ops: backends.ops,
    queue: new SessionQueue(),
    idempotencyTtlMs: options.idempotencyTtlMs ?? 86_400_000,
    now: () => new Date(),
  };
  const rate = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  const trustedProxies = options.trustProxy ?? 0;
  const limits = rate === false ? undefined : requestLimits(auth, { rate, trustedProxies });
  const app = buildApp(services, options.extend, limits);
  const purgeExpired = async (days = options.retentionDays) => {
    if (days === undefined) throw new RangeError("No retention period configured");
    return purgeExpiredSessions(services.store, services.db, days, services.now());
  };
  const maintenance = async () => {
    if (options.retentionDays !== undefined) await purgeExpired();
    const cutoff = new Date(services.now().getTime() - services.idempotencyTtlMs).toISOString();
    await services.db.sweepIdempotent(cutoff);
    // Blobs an append claimed but never referenced (it failed), past their grace period.
    await backends.blobs?.collect();
  };
  const stopTimer = startTimer(maintenance, options.retentionIntervalMs ?? 3_600_000);

  let listener: Listener | undefined;
  let url: string | undefined;
  let closed: Promise<void> | undefined;
  return {
    app,
    services,
    get url() {
      return url;
    },
    purgeExpired,
    async listen() {
      const host = options.host ?? DEFAULT_HOST;
      const port = options.port ?? DEFAULT_PORT;
      listener = await listen(app, { host, port, tls: options.tls, timeouts: options.timeouts });
      url = listener.url;
      return { url, port: listener.port };
    },
    close() {
      closed ??= (async () => {
        await stopTimer();
        await listener?.close(options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS);
        await backends.db.close();
        if (backends.ownsStore) await backends.store.close();
        await backends.close?.();
      })();
      return closed;
    },
  };
}
