import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ValidationError } from "../../core/errors.js";
import { serverBlobLocation } from "../../server/backends.js";
import {
  type BlobsReport,
  backupSqlite,
  postgresBackupAdvice,
  restoreSqlite,
} from "../../server/ops/backup.js";
import { resolveStoreBackend } from "../../store/registry.js";
import type { BackupFlags, RestoreFlags } from "./backup.js";

type Target = { sqlite: string; blobs: string } | { postgres: string };

/**
 * The SQLite file `serve` uses for these flags and the blob store beside it (or `--blobs`), or the
 * PostgreSQL URL. A location no backend takes is refused as `serve` refuses it (password hidden).
 */
function target(flags: { data: string; database?: string; blobs?: string }): Target {
  const location = flags.database || `sqlite:${join(resolve(flags.data), "sessiontree.db")}`;
  const { kind } = resolveStoreBackend(location);
  if (kind === "postgres") return { postgres: location };
  const file = resolve(location.replace(/^sqlite:/, ""));
  const blobs = serverBlobLocation(flags.blobs, kind, file);
  if (kind === "sqlite" && blobs) return { sqlite: file, blobs };
  throw new ValidationError(
    "invalid_argument",
    `backup and restore take a SQLite file or a postgres:// URL, not ${kind}`,
  );
}

/** PostgreSQL is backed up with its own tools: say how, and exit non-zero (nothing was written). */
function advisePostgres(url: string): void {
  console.error(postgresBackupAdvice(url));
  process.exitCode = 2;
}

export async function runBackup(flags: BackupFlags): Promise<void> {
  const where = target(flags);
  if ("postgres" in where) return advisePostgres(where.postgres);
  const report = await backupSqlite(where.sqlite, resolve(flags.to), { blobs: where.blobs });
  if (flags.json) console.log(JSON.stringify(report));
  else
    console.log(
      `backed up ${report.sessions} sessions, ${report.entries} entries to ${report.file}${copiedBlobs(report.blobs, "to")}`,
    );
  noteObjectStorage(report.blobs, "are not in this backup: back that bucket up as well");
}

export async function runRestore(flags: RestoreFlags): Promise<void> {
  const where = target(flags);
  if ("postgres" in where) return advisePostgres(where.postgres);
  mkdirSync(dirname(where.sqlite), { recursive: true });
  const report = await restoreSqlite(resolve(flags.from), where.sqlite, {
    blobs: where.blobs,
    replace: flags.force === true,
  });
  if (flags.json) console.log(JSON.stringify(report));
  else {
    console.log(
      `restored ${report.sessions} sessions, ${report.entries} entries into ${report.file}${copiedBlobs(report.blobs, "from")}`,
    );
    if (report.keptAs) console.log(`the database it replaced is kept as ${report.keptAs}`);
  }
  noteObjectStorage(report.blobs, "are read from there: that bucket must hold them (restore it first)");
}

/** ", and N payloads kept out of line to/from FOLDER", when the backup holds any. */
function copiedBlobs(blobs: BlobsReport, direction: "to" | "from"): string {
  if (!blobs.folder || blobs.referenced === 0) return "";
  return `, and ${blobs.referenced} payload(s) kept out of line ${direction} ${blobs.folder}`;
}

/** Object storage is the operator's to back up: said on stderr every time, whatever the output format. */
function noteObjectStorage(blobs: BlobsReport, what: string): void {
  if (!blobs.inObjectStorage) return;
  console.error(
    `note: payloads kept out of line (images, large text parts, archived sessions; ${blobs.referenced} referenced) ` +
      `live in ${blobs.location} and ${what} (docs/server.md, Backup and restore)`,
  );
}
