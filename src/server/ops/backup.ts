import { closeSync, existsSync, fsyncSync, openSync, readdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { ValidationError } from "../../core/errors.js";
import { redactPassword } from "../../store/redact-location.js";
import {
  type BlobsReport,
  blobFolderOf,
  copySnapshotBlobs,
  isGoneSinceSnapshot,
  restoreBlobs,
} from "./backup-blobs.js";

export type { BlobsReport } from "./backup-blobs.js";

/** What a backup or a restore copied, checked in the copy itself. */
export interface BackupReport {
  file: string;
  bytes: number;
  sessions: number;
  entries: number;
  /** The payloads kept out of line the database refers to, and where they went. */
  blobs: BlobsReport;
}

export interface BlobLocation {
  /** Where the server keeps payloads out of line (`file:…`, `s3://…`), as `serve --blobs` names it. */
  blobs: string;
}

/** Pages copied per step after the first; one big step keeps a busy writer from restarting it. */
const PAGES_PER_STEP = 1 << 30;

/** Snapshots taken before a blob that stays missing refuses the backup (see `isGoneSinceSnapshot`). */
const SNAPSHOT_ATTEMPTS = 3;

/**
 * Copies a live SQLite database (sessions, entries and the server's tables) with SQLite's online
 * backup API: a consistent snapshot while servers keep writing (WAL mode: readers never block
 * writers). Then the blobs that snapshot refers to go to `<to>.blobs` (unless they live in object
 * storage). Written under temp names beside `to`, synced, checked, then renamed, the folder first:
 * `to` is either the whole backup or absent. An existing `to` is refused (nothing is overwritten).
 */
export async function backupSqlite(from: string, to: string, options: BlobLocation): Promise<BackupReport> {
  if (!existsSync(from)) throw new ValidationError("invalid_argument", `No database at ${from}`);
  for (const taken of [to, blobFolderOf(to)])
    if (existsSync(taken))
      throw new ValidationError("invalid_argument", `${taken} exists: choose a new file`);
  for (let attempt = 1; ; attempt++) {
    try {
      return await snapshotWithBlobs(from, to, options.blobs);
    } catch (error) {
      if (attempt >= SNAPSHOT_ATTEMPTS || !isGoneSinceSnapshot(error)) throw error;
    }
  }
}

async function snapshotWithBlobs(from: string, to: string, blobs: string): Promise<BackupReport> {
  const partial = join(dirname(to), `.${process.pid}-${Date.now()}.backup-partial`);
  const partialBlobs = blobFolderOf(partial);
  try {
    await snapshot(from, partial);
    const report = checkCopy(partial);
    const copied = await copySnapshotBlobs(partial, blobs, partialBlobs);
    syncFile(partial);
    if (copied.folder) {
      syncFolders(partialBlobs);
      renameSync(partialBlobs, blobFolderOf(to));
    }
    renameSync(partial, to);
    syncFile(dirname(to));
    return { ...report, file: to, blobs: { ...copied, folder: copied.folder && blobFolderOf(to) } };
  } catch (error) {
    rmSync(partial, { force: true });
    rmSync(partialBlobs, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The online backup of `from` into the new file `to`, made a single self-contained file: a copy
 * keeps the source's WAL mode, and every read-only open of a WAL file leaves `-wal` and `-shm`
 * files beside it. The server puts a database back in WAL mode when it opens it.
 */
async function snapshot(from: string, to: string): Promise<void> {
  const source = new Database(from, { fileMustExist: true });
  try {
    source.pragma("busy_timeout = 5000");
    await source.backup(to, { progress: () => PAGES_PER_STEP });
  } finally {
    source.close();
  }
  const copy = new Database(to, { fileMustExist: true });
  try {
    copy.pragma("journal_mode = DELETE");
  } finally {
    copy.close();
  }
}

/**
 * Puts a backup in place of the database at `target` (the server stopped). The backup is checked
 * first, and its blobs put into the blob store (every blob it refers to must then be there); a
 * database already at `target` is kept beside it as `<target>.before-restore-<time>` (its WAL too),
 * never overwritten, and only with `replace`.
 */
export async function restoreSqlite(
  backup: string,
  target: string,
  options: BlobLocation & { replace?: boolean; now?: Date },
): Promise<BackupReport & { keptAs: string | null }> {
  if (!existsSync(backup)) throw new ValidationError("invalid_argument", `No backup at ${backup}`);
  if (existsSync(target) && !options.replace) {
    throw new ValidationError(
      "invalid_argument",
      `${target} exists: pass --force to keep it aside and restore`,
    );
  }
  checkCopy(backup);
  // Blobs before the database: stopped halfway, the old database is still in place, and blobs
  // no database refers to are what the server's collection removes.
  const blobs = await restoreBlobs(backup, options.blobs);
  const staged = join(dirname(target), `.${process.pid}-${Date.now()}.restore-partial`);
  const source = new Database(backup, { readonly: true, fileMustExist: true });
  try {
    await source.backup(staged, { progress: () => PAGES_PER_STEP });
  } catch (error) {
    rmSync(staged, { force: true });
    throw error;
  } finally {
    source.close();
  }
  syncFile(staged);
  const keptAs = existsSync(target) ? keepAside(target, options.now ?? new Date()) : null;
  renameSync(staged, target);
  syncFile(dirname(target));
  return { ...checkCopy(target), file: target, blobs, keptAs };
}

/** Moves a database and its WAL and shared-memory files aside under one new name. */
function keepAside(target: string, now: Date): string {
  const aside = `${target}.before-restore-${now.toISOString().replace(/[:.]/g, "-")}`;
  for (const suffix of ["", "-wal", "-shm"]) {
    if (existsSync(target + suffix)) renameSync(target + suffix, aside + suffix);
  }
  return aside;
}

/** Refuses a copy SQLite finds damaged, or one that is not a sessiontree database. */
function checkCopy(file: string): Omit<BackupReport, "file" | "blobs"> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const integrity = db.pragma("integrity_check", { simple: true });
    if (integrity !== "ok") throw new ValidationError("invalid_argument", `${file} is damaged: ${integrity}`);
    const tables = new Set(
      (
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>
      ).map((row) => row.name),
    );
    if (!tables.has("sessions") || !tables.has("entries")) {
      throw new ValidationError("invalid_argument", `${file} is not a sessiontree database`);
    }
    const count = (sql: string) => Number((db.prepare(sql).get() as { n: number }).n);
    const pageBytes =
      Number(db.pragma("page_size", { simple: true })) * Number(db.pragma("page_count", { simple: true }));
    return {
      bytes: pageBytes,
      sessions: count("SELECT COUNT(*) AS n FROM sessions"),
      entries: count("SELECT COUNT(*) AS n FROM entries"),
    };
  } finally {
    db.close();
  }
}

/** Syncs a folder and the folders in it (each file in them was synced as it was written). */
function syncFolders(dir: string): void {
  for (const child of readdirSync(dir, { withFileTypes: true }))
    if (child.isDirectory()) syncFolders(join(dir, child.name));
  syncFile(dir);
}

function syncFile(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** What to run for a PostgreSQL database: its own tools do this better than we could. */
export function postgresBackupAdvice(url: string): string {
  const shown = redactPassword(url);
  return [
    "A PostgreSQL database is backed up with PostgreSQL's own tools (consistent while servers write):",
    `  pg_dump --format=custom --file=sessiontree.dump '${shown}'`,
    "and restored into an empty database (servers stopped) with:",
    `  pg_restore --clean --if-exists --no-owner --dbname='${shown}' sessiontree.dump`,
    "Payloads kept out of line are in the blob store `serve --blobs` names: back it up as well.",
    "See docs/server.md, 'Backup and restore'.",
  ].join("\n");
}
