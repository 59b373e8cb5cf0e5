import { readFileSync } from "node:fs";
import type { Command } from "commander";
import type { ServerOptions, SessionTreeServer } from "../../server/index.js";
import { UsageError } from "../exit.js";
import { parseDays, parseHost, parseInteger } from "../option-parsers.js";
import { databaseFromEnv, parseDuration } from "./keys.js";

interface ServeFlags {
  port: number;
  host: string;
  data: string;
  database?: string;
  blobs?: string;
  s3Endpoint?: string;
  s3PathStyle?: boolean;
  retentionDays?: number;
  rateLimit: number;
  jwtSecretEnv?: string;
  jwtPublicKey?: string;
  jwtIssuer?: string;
  jwtAudience?: string;
  jwtAllowNoExp?: boolean;
  corsOrigin?: string[];
  accessLog: boolean;
  quotaSessions?: number;
  quotaEntries?: number;
  quotaBytes?: number;
  keyMaxAge?: number;
  maxKeysPerUser?: number;
  requestTimeout?: number;
  headersTimeout?: number;
  keepAliveTimeout?: number;
  shutdownGrace: number;
  tlsCert?: string;
  tlsKey?: string;
  trustProxy: number;
  viewer: boolean;
}

// The settings are checked in the action, after commander parsed them: a mistake found here is a
// UsageError (exit 2, printed by main), not commander's own error, which main takes as printed.

/** TLS, proxies and shutdown (src/server/listen/). */
function listenOptions(flags: ServeFlags): Partial<ServerOptions> {
  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined)) {
    throw new UsageError("--tls-cert and --tls-key go together");
  }
  const tls =
    flags.tlsCert && flags.tlsKey
      ? { cert: readFileSync(flags.tlsCert, "utf8"), key: readFileSync(flags.tlsKey, "utf8") }
      : undefined;
  return { tls, trustProxy: flags.trustProxy, shutdownGraceMs: flags.shutdownGrace * 1000 };
}

/** The operator's settings of issue 16 (src/server/ops/ops-options.ts). */
function opsOptions(flags: ServeFlags): Partial<ServerOptions> {
  return {
    corsOrigin: flags.corsOrigin,
    accessLog: flags.accessLog,
    quotas: { maxSessions: flags.quotaSessions, maxEntries: flags.quotaEntries, maxBytes: flags.quotaBytes },
    keys: { maxAgeMs: flags.keyMaxAge, maxPerUser: flags.maxKeysPerUser },
    timeouts: {
      requestMs: flags.requestTimeout,
      headersMs: flags.headersTimeout,
      keepAliveMs: flags.keepAliveTimeout,
    },
  };
}

function toOptions(flags: ServeFlags): ServerOptions {
  const options: ServerOptions = {
    port: flags.port,
    host: flags.host,
    data: flags.data,
    database: flags.database,
    blobs: flags.blobs,
    s3Endpoint: flags.s3Endpoint,
    s3PathStyle: flags.s3PathStyle,
    retentionDays: flags.retentionDays,
    ...opsOptions(flags),
    ...listenOptions(flags),
    rateLimit: flags.rateLimit === 0 ? false : { perSecond: flags.rateLimit, burst: flags.rateLimit * 2 },
  };
  // The secret is read from an environment variable, never from argv (visible in `ps`).
  const secret = flags.jwtSecretEnv ? process.env[flags.jwtSecretEnv] : undefined;
  if (flags.jwtSecretEnv && !secret)
    throw new UsageError(`--jwt-secret-env names ${flags.jwtSecretEnv}, which is not set (or empty)`);
  if (secret || flags.jwtPublicKey) {
    options.jwt = {
      secret,
      publicKey: flags.jwtPublicKey ? readFileSync(flags.jwtPublicKey, "utf8") : undefined,
      issuer: flags.jwtIssuer,
      audience: flags.jwtAudience,
      allowNoExpiry: flags.jwtAllowNoExp === true,
    };
  }
  return options;
}

/**
 * Listens, or closes what `createServer` opened and rethrows: with the port in use the process
 * then ends at once, not once a PostgreSQL pool's idle connections time out.
 */
async function listenOrClose(server: SessionTreeServer): Promise<{ url: string }> {
  try {
    return await server.listen();
  } catch (error) {
    await server.close().catch(() => {});
    throw error;
  }
}

/** What the start line says it serves from: the kind of database it opened, not how it was named. */
function servedFrom(server: SessionTreeServer, flags: ServeFlags): string {
  if (server.services.db.kind === "postgres") return "PostgreSQL";
  return flags.database ? `SQLite at ${flags.database.replace(/^sqlite:/, "")}` : `SQLite in ${flags.data}`;
}

/** `sessiontree serve`: the multi-tenant HTTP service, until SIGINT/SIGTERM. */
export function register(program: Command): void {
  program
    .command("serve")
    .description("run the multi-tenant session service (HTTP API, OpenAPI at /openapi.json)")
    .option("--port <port>", "port to listen on (0: any free port)", parseInteger(0, 65535), 7373)
    .option("--host <host>", "interface to listen on (0.0.0.0 or :: for every one)", parseHost, "127.0.0.1")
    .option("--data <dir>", "data folder of the embedded SQLite database", "./.sessiontree")
    .option(
      "--database <url>",
      "postgres:// URL, or sqlite:FILE (instead of the data folder; env SESSIONTREE_DATABASE)",
      databaseFromEnv(),
    )
    .option(
      "--blobs <location>",
      "large payloads and archives: file:FOLDER or s3://BUCKET/PREFIX (default: file: under --data)",
    )
    .option(
      "--s3-endpoint <url>",
      "S3-compatible endpoint for s3:// blobs (credentials: AWS_* environment variables)",
    )
    .option("--s3-path-style", "path-style S3 URLs (MinIO, Ceph and most S3-compatible servers)")
    .option("--retention-days <days>", "purge sessions soft-deleted longer ago than this (hourly)", parseDays)
    .option(
      "--rate-limit <perSecond>",
      "requests per second per user (per client address without a valid credential), burst twice that (0: off)",
      parseInteger(0, 1e6),
      100,
    )
    .option(
      "--jwt-secret-env <name>",
      "accept HS256 JWTs signed with the secret in this environment variable",
    )
    .option("--jwt-public-key <file>", "accept JWTs signed by this PEM public key")
    .option("--jwt-issuer <iss>", "required JWT issuer")
    .option("--jwt-audience <aud>", "required JWT audience")
    .option("--jwt-allow-no-exp", "accept JWTs without `exp` (never expiring; refused by default)")
    .option("--key-max-age <duration>", "longest life of a key made through the API: 90d, 12h", parseDuration)
    .option("--max-keys-per-user <n>", "live API keys a user may hold (default 100)", parseInteger(1, 1e6))
    .option("--cors-origin <origin...>", "browser origins allowed to call the API (* for any)")
    .option("--no-access-log", "do not write a JSON line per request to stdout")
    .option("--no-viewer", "do not serve the web viewer at / (it signs in and reads through the API)")
    .option("--quota-sessions <n>", "sessions a user may keep (trash included)", parseInteger(1, 1e12))
    .option("--quota-entries <n>", "entries a user may keep", parseInteger(1, 1e15))
    .option("--quota-bytes <n>", "bytes of entries a user may keep", parseInteger(1, 1e15))
    .option("--request-timeout <ms>", "max time to receive a request", parseInteger(0, 1e8))
    .option("--headers-timeout <ms>", "max time to receive headers", parseInteger(0, 1e8))
    .option("--keep-alive-timeout <ms>", "idle keep-alive close after", parseInteger(0, 1e8))
    .option(
      "--shutdown-grace <seconds>",
      "on SIGTERM, time for in-flight requests",
      parseInteger(0, 3600),
      10,
    )
    .option("--tls-cert <file>", "PEM certificate (chain): serve HTTPS directly (with --tls-key)")
    .option("--tls-key <file>", "PEM private key of --tls-cert")
    .option(
      "--trust-proxy <hops>",
      "reverse proxies in front whose X-Forwarded-For names the client (0: none)",
      parseInteger(0, 10),
      0,
    )
    .action(async (flags: ServeFlags) => {
      // Loaded on use, as in `purge-deleted`: the service brings the HTTP stack and the databases.
      const { createServer } = await import("../../server/index.js");
      const { plainHttpWarning } = await import("../../server/listen/listener.js");
      const { logLine } = await import("../../server/ops/log-line.js");
      const options = toOptions(flags);
      if (flags.viewer) {
        const { mountServiceViewer } = await import("../../viewer/service-page.js");
        options.extend = (app) => mountServiceViewer(app);
      }
      const server = await createServer(options);
      const { url } = await listenOrClose(server);
      // JSON like every line the server writes; scripts and tests look for `listening on URL ` in it.
      const started = `sessiontree listening on ${url} (${servedFrom(server, flags)})`;
      console.log(logLine("info", started, { url, database: server.services.db.kind }));
      const warning = plainHttpWarning(flags.host, options.tls !== undefined);
      if (warning) console.error(logLine("warn", warning));
      // SIGTERM drains (in-flight requests finish, keep-alives close) within the grace period;
      // should closing the databases hang after that, the process still ends.
      const stop = () => {
        setTimeout(() => process.exit(1), flags.shutdownGrace * 1000 + 5000).unref();
        server.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
}

interface PurgeFlags {
  olderThanDays: number;
  data: string;
  database?: string;
}

/**
 * `sessiontree purge-deleted --older-than-days N`: retention by command (from cron, say), the same
 * as `serve --retention-days N` does hourly. Only sessions already soft-deleted are touched.
 */
export function registerPurge(program: Command): void {
  program
    .command("purge-deleted")
    .description("purge sessions soft-deleted longer ago than N days, of every user (audited)")
    .requiredOption("--older-than-days <days>", "retention period in days", parseDays)
    .option("--data <dir>", "data folder of the embedded SQLite database", "./.sessiontree")
    .option("--database <url>", "postgres:// URL (env SESSIONTREE_DATABASE)", databaseFromEnv())
    .action(async (flags: PurgeFlags) => {
      const { openBackends, purgeExpiredSessions } = await import("../../server/index.js");
      const backends = await openBackends({ data: flags.data, database: flags.database });
      try {
        const purged = await purgeExpiredSessions(
          backends.store,
          backends.db,
          flags.olderThanDays,
          new Date(),
          "cli",
        );
        console.log(`purged ${purged.length} session${purged.length === 1 ? "" : "s"}`);
      } finally {
        await backends.db.close();
        await backends.store.close();
        await backends.close?.();
      }
    });
}
