import type { Command } from "commander";
import { databaseFromEnv, parseDuration } from "./keys.js";

export interface ArchiveFlags {
  olderThan?: number;
  restore?: boolean;
  collect?: boolean;
  data: string;
  database?: string;
  blobs?: string;
  s3Endpoint?: string;
  s3PathStyle?: boolean;
  json?: boolean;
}

/**
 * `sessiontree archive --older-than 30d`: sessions untouched that long move to object storage as one
 * gzip pi JSONL object each (their summary stays; any read or write brings them back).
 * `--restore` brings every archived session back; `--collect` deletes unreferenced blobs.
 */
export function register(program: Command): void {
  program
    .command("archive")
    .description("move sessions untouched for a while to object storage (--restore brings them back)")
    .option(
      "--older-than <duration>",
      "archive sessions last modified longer ago than this (30d, 12h)",
      parseDuration,
    )
    .option("--restore", "bring every archived session back into the database")
    .option("--collect", "delete blobs no session references any more (after the grace period)")
    .option("--data <dir>", "data folder of the embedded SQLite database", "./.sessiontree")
    .option(
      "--database <url>",
      "sqlite:FILE or postgres:// URL (env SESSIONTREE_DATABASE)",
      databaseFromEnv(),
    )
    .option("--blobs <location>", "file:FOLDER or s3://BUCKET/PREFIX (default: file: under the data folder)")
    .option("--s3-endpoint <url>", "an S3-compatible endpoint (MinIO, Ceph, R2); AWS when absent")
    .option("--s3-path-style", "path-style S3 URLs (most S3-compatible servers need them)")
    .option("--json", "print JSON")
    .action(async (flags: ArchiveFlags, command: Command) => {
      const { runArchive } = await import("./archive-run.js");
      await runArchive({ ...flags, json: command.optsWithGlobals<{ json?: boolean }>().json });
    });
}
