import type { Command } from "commander";
import { databaseFromEnv } from "./keys.js";

export interface BackupFlags {
  data: string;
  database?: string;
  blobs?: string;
  to: string;
  json?: boolean;
}

export interface RestoreFlags {
  data: string;
  database?: string;
  blobs?: string;
  from: string;
  force?: boolean;
  json?: boolean;
}

const BLOBS_HELP =
  "the blob store `serve --blobs` names: file:FOLDER or s3://BUCKET/PREFIX (default: blobs/ beside the database)";

/**
 * `sessiontree backup --to FILE` and `sessiontree restore --from FILE`: the service's database
 * (sessions and the server's tables) and the payloads it keeps out of line in a file blob store
 * (in FILE.blobs), SQLite only; for PostgreSQL they print the pg_dump and pg_restore commands to
 * use. Blobs in object storage stay where they are, and the commands say so.
 */
export function register(program: Command): void {
  program
    .command("backup")
    .description(
      "copy the service's SQLite database and its blobs while servers keep running (online backup)",
    )
    .requiredOption("--to <file>", "the backup file to write (must not exist); blobs go to <file>.blobs")
    .option("--data <dir>", "data folder of the embedded SQLite database", "./.sessiontree")
    .option(
      "--database <url>",
      "sqlite:FILE or postgres:// URL (env SESSIONTREE_DATABASE)",
      databaseFromEnv(),
    )
    .option("--blobs <location>", BLOBS_HELP)
    .option("--json", "print JSON")
    .action(async (flags: BackupFlags, command: Command) => {
      const { runBackup } = await import("./backup-run.js");
      await runBackup({ ...flags, json: command.optsWithGlobals<{ json?: boolean }>().json });
    });

  program
    .command("restore")
    .description("put a backup in place of the service's SQLite database (stop the servers first)")
    .requiredOption("--from <file>", "a file written by `sessiontree backup` (its blobs in <file>.blobs)")
    .option("--data <dir>", "data folder of the embedded SQLite database", "./.sessiontree")
    .option(
      "--database <url>",
      "sqlite:FILE or postgres:// URL (env SESSIONTREE_DATABASE)",
      databaseFromEnv(),
    )
    .option("--blobs <location>", BLOBS_HELP)
    .option("--force", "replace an existing database, keeping it aside as <db>.before-restore-<time>")
    .option("--json", "print JSON")
    .action(async (flags: RestoreFlags, command: Command) => {
      const { runRestore } = await import("./backup-run.js");
      await runRestore({ ...flags, json: command.optsWithGlobals<{ json?: boolean }>().json });
    });
}
