import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import type { Hono } from "hono";
import { buildApp } from "./app.js";
import { Authenticator } from "./auth/authenticate.js";
import { openBackends } from "./backends.js";
import { RateLimiter } from "./limits/rate-limit.js";
import {
  DEFAULT_HOST,
  DEFAULT_LIMITS,
  DEFAULT_PORT,
  DEFAULT_RATE_LIMIT,
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
  /** Stops listening, stops timers and closes the databases. Safe to call twice. */
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
  const rate = options.rateLimit === false ? null : new RateLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT);
  const services: ServerServices = {
    store: backends.store,
    db: backends.db,
    auth: new Authenticator(backends.db, options.jwt),
    limits: Object.freeze({ ...DEFAULT_LIMITS, ...options.limits }),
    rateLimiter: rate,
    queue: new SessionQueue(),
    idempotencyTtlMs: options.idempotencyTtlMs ?? 86_400_000,
    now: () => new Date(),
  };
  const app = buildApp(services, options.extend);
  const purgeExpired = async (days = options.retentionDays) => {
    if (days === undefined) throw new RangeError("No retention period configured");
    return purgeExpiredSessions(services.store, services.db, days, services.now());
  };
  const maintenance = async () => {
    if (options.retentionDays !== undefined) await purgeExpired();
    const cutoff = new Date(services.now().getTime() - services.idempotencyTtlMs).toISOString();
    await services.db.sweepIdempotent(cutoff);
  };
  const stopTimer = startTimer(maintenance, options.retentionIntervalMs ?? 3_600_000);

  let http: ServerType | undefined;
  let url: string | undefined;
  let closed: Promise<void> | undefined;
  return {
    app,
    services,
    get url() {
      return url;
    },
    purgeExpired,
    listen: () =>
      new Promise((resolve, reject) => {
        const host = options.host ?? DEFAULT_HOST;
        http = serve(
          { fetch: app.fetch, port: options.port ?? DEFAULT_PORT, hostname: host },
          (info: AddressInfo) => {
            url = `http://${host.includes(":") ? `[${host}]` : host}:${info.port}`;
            resolve({ url, port: info.port });
          },
        );
        http.once("error", reject);
      }),
    close() {
      closed ??= (async () => {
        await stopTimer();
        if (http) await new Promise<void>((resolve) => http?.close(() => resolve()));
        await backends.db.close();
        if (backends.ownsStore) await backends.store.close();
        await backends.close?.();
      })();
      return closed;
    },
  };
}
