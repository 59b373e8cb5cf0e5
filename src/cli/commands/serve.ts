import { readFileSync } from "node:fs";
import { type Command, InvalidArgumentError } from "commander";
import type { ServerOptions } from "../../server/index.js";
import { parseDays, parseInteger } from "../option-parsers.js";
import { databaseFromEnv } from "./keys.js";

interface ServeFlags {
  port: number;
  host: string;
  data: string;
  database?: string;
  retentionDays?: number;
  rateLimit: number;
  jwtSecretEnv?: string;
  jwtPublicKey?: string;
  jwtIssuer?: string;
  jwtAudience?: string;
}

function toOptions(flags: ServeFlags): ServerOptions {
  const options: ServerOptions = {
    port: flags.port,
    host: flags.host,
    data: flags.data,
    database: flags.database,
    retentionDays: flags.retentionDays,
    rateLimit: flags.rateLimit === 0 ? false : { perSecond: flags.rateLimit, burst: flags.rateLimit * 2 },
  };
  // The secret is read from an environment variable, never from argv (visible in `ps`).
  const secret = flags.jwtSecretEnv ? process.env[flags.jwtSecretEnv] : undefined;
  if (flags.jwtSecretEnv && !secret) throw new InvalidArgumentError(`${flags.jwtSecretEnv} is not set`);
  if (secret || flags.jwtPublicKey) {
    options.jwt = {
      secret,
      publicKey: flags.jwtPublicKey ? readFileSync(flags.jwtPublicKey, "utf8") : undefined,
      issuer: flags.jwtIssuer,
      audience: flags.jwtAudience,
    };
  }
  return options;
}

/** `sessiontree serve`: the multi-tenant HTTP service, until SIGINT/SIGTERM. */
export function register(program: Command): void {
  program
    .command("serve")
    .description("run the multi-tenant session service (HTTP API, OpenAPI at /openapi.json)")
    .option("--port <port>", "port to listen on (0: any free port)", parseInteger(0, 65535), 7373)
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option("--data <dir>", "data folder of the embedded SQLite database", "./.sessiontree")
    .option(
      "--database <url>",
      "postgres:// URL, or sqlite:FILE (instead of the data folder; env SESSIONTREE_DATABASE)",
      databaseFromEnv(),
    )
    .option("--retention-days <days>", "purge sessions soft-deleted longer ago than this (hourly)", parseDays)
    .option(
      "--rate-limit <perSecond>",
      "requests per second per credential, burst twice that (0: off)",
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
    .action(async (flags: ServeFlags) => {
      // Loaded on use, as in `purge-deleted`: the service brings the HTTP stack and the databases.
      const { createServer } = await import("../../server/index.js");
      const server = await createServer(toOptions(flags));
      const { url } = await server.listen();
      const where = flags.database ? "PostgreSQL" : `SQLite in ${flags.data}`;
      console.log(`sessiontree listening on ${url} (${where})`);
      const stop = () => {
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
