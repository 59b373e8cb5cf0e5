import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { ValidationError } from "../../core/errors.js";

/** What a backup or a restore copied, checked in the copy itself. */
export interface BackupReport {
  file: string;
  bytes: number;
  sessions: number;
  entries: number;
}

/** Pages copied per step after the first; one big step keeps a busy writer from restarting it. */
const PAGES_PER_STEP = 1 << 30;

/**
 * Copies a live SQLite database (sessions, entries and the server's tables) with SQLite's online
 * backup API: a consistent snapshot while servers keep writing (WAL mode: readers never block
 * writers). Written to a temp file beside `to`, synced, checked, then renamed: `to` is either the
 * whole backup or absent. An existing `to` is refused (nothing is overwritten).
 */
export async function backupSqlite(from: string, to: string): Promise<BackupReport> {
  if (!existsSync(from)) throw new ValidationError("invalid_argument", `No database at ${from}`);
  if (existsSync(to)) throw new ValidationError("invalid_argument", `${to} exists: choose a new file`);
  const source = new Database(from, { fileMustExist: true });
  const partial = join(dirname(to), `.${process.pid}-${Date.now()}.backup-partial`);
  try {
    source.pragma("busy_timeout = 5000");
    await source.backup(partial, { progress: () => PAGES_PER_STEP });
    const report = checkCopy(partial);
    syncFile(partial);
    renameSync(partial, to);
    syncFile(dirname(to));
    return { ...report, file: to };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    source.close();
  }
}

/**
 * Puts a backup in place of the database at `target` (the server stopped). The backup is checked
 * first; a database already at `target` is kept beside it as `<target>.before-restore-<time>`
 * (its WAL too), never overwritten, and only with `replace`.
 */
export async function restoreSqlite(
  backup: string,
  target: string,
  options: { replace?: boolean; now?: Date } = {},
): Promise<BackupReport & { keptAs: string | null }> {
  if (!existsSync(backup)) throw new ValidationError("invalid_argument", `No backup at ${backup}`);
  if (existsSync(target) && !options.replace) {
    throw new ValidationError(
      "invalid_argument",
      `${target} exists: pass --force to keep it aside and restore`,
    );
  }
  checkCopy(backup);
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
  return { ...checkCopy(target), file: target, keptAs };
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
function checkCopy(file: string): Omit<BackupReport, "file"> {
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
    "See docs/server.md, 'Backup and restore'.",
  ].join("\n");
}

function redactPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "****";
    return parsed.toString();
  } catch {
    return url;
  }
}
