import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { backupSqlite, postgresBackupAdvice, restoreSqlite } from "../../server/ops/backup.js";
import type { BackupFlags, RestoreFlags } from "./backup.js";

/** The SQLite file `serve` uses for these flags, or the PostgreSQL URL. */
function target(flags: { data: string; database?: string }): { sqlite: string } | { postgres: string } {
  const database = flags.database;
  if (database && /^postgres(ql)?:\/\//.test(database)) return { postgres: database };
  if (database)
    return { sqlite: database.startsWith("sqlite:") ? database.slice("sqlite:".length) : database };
  return { sqlite: join(resolve(flags.data), "sessiontree.db") };
}

/** PostgreSQL is backed up with its own tools: say how, and exit non-zero (nothing was written). */
function advisePostgres(url: string): void {
  console.error(postgresBackupAdvice(url));
  process.exitCode = 2;
}

export async function runBackup(flags: BackupFlags): Promise<void> {
  const where = target(flags);
  if ("postgres" in where) return advisePostgres(where.postgres);
  const report = await backupSqlite(where.sqlite, resolve(flags.to));
  if (flags.json) console.log(JSON.stringify(report));
  else console.log(`backed up ${report.sessions} sessions, ${report.entries} entries to ${report.file}`);
}

export async function runRestore(flags: RestoreFlags): Promise<void> {
  const where = target(flags);
  if ("postgres" in where) return advisePostgres(where.postgres);
  mkdirSync(dirname(where.sqlite), { recursive: true });
  const report = await restoreSqlite(resolve(flags.from), where.sqlite, { replace: flags.force === true });
  if (flags.json) console.log(JSON.stringify(report));
  else {
    console.log(`restored ${report.sessions} sessions, ${report.entries} entries into ${report.file}`);
    if (report.keptAs) console.log(`the database it replaced is kept as ${report.keptAs}`);
  }
}
