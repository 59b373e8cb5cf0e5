import { SessionTreeError } from "../core/errors.js";
import { nowIso } from "../core/ids.js";
import { inTransaction, type PgClient, type PgPool } from "./postgres/connection.js";
import type { SqliteDatabase } from "./sqlite/sqlite-config.js";

/**
 * Versioned schema migrations, run the same way on SQLite and PostgreSQL, for the store's tables
 * and for anyone else's (the service keeps its keys and audit tables with the same runner). Each
 * set has a table listing the versions applied; a run applies the missing steps in order, each in
 * the same transaction as its row in that table, so a crash never leaves a half-applied step, and
 * running again (or from a second process) applies nothing twice.
 */
export interface Migration {
  /** 1, 2, 3…: never renumbered, never edited once released. */
  version: number;
  name: string;
  /** Plain DDL, no parameters, run in order. */
  statements: readonly string[];
}

/** A named, versioned series of steps and the table that records which of them ran. */
export interface MigrationSet {
  /** For messages: "sessiontree store", "sessiontree server". */
  name: string;
  /** The table recording applied steps, one per set: a plain identifier (`[a-z_][a-z0-9_]*`). */
  table: string;
  migrations: readonly Migration[];
  /** PostgreSQL: the advisory lock that serializes concurrent runs of this set. Default: from `table`. */
  lockKey?: number;
}

/** The database holds a step of the set this code does not know: it was migrated by newer code. */
export class SchemaTooNewError extends SessionTreeError {
  constructor(set: string | undefined, version: number) {
    const which = set === undefined ? "" : ` (${set})`;
    super(
      "schema_too_new",
      `The database has schema version ${version}${which}, which this sessiontree does not know: upgrade it`,
      { details: { set, version } },
    );
  }
}

/** The migrations still to apply, in order. Refuses a database newer than this code. */
export function pendingMigrations(
  all: readonly Migration[],
  applied: ReadonlySet<number>,
  setName?: string,
): Migration[] {
  const known = new Set(all.map((m) => m.version));
  for (const version of applied) {
    if (!known.has(version)) throw new SchemaTooNewError(setName, version);
  }
  return all.filter((m) => !applied.has(m.version)).sort((a, b) => a.version - b.version);
}

/** What the SQLite runner needs of a better-sqlite3 `Database`. */
export type SqliteMigrationTarget = Pick<SqliteDatabase, "exec" | "prepare">;

/** Applies the set's missing steps on SQLite in one `BEGIN IMMEDIATE` transaction. Returns their versions. */
export function runSqliteMigrations(db: SqliteMigrationTarget, set: MigrationSet): number[] {
  const table = tableName(set);
  db.exec("BEGIN IMMEDIATE");
  try {
    db.exec(recordTableDdl(table));
    const rows = db.prepare(`SELECT version FROM ${table}`).all() as Array<{ version: unknown }>;
    const record = db.prepare(`INSERT INTO ${table} (version, name, applied_at) VALUES (?, ?, ?)`);
    const pending = pendingMigrations(set.migrations, versionsOf(rows), set.name);
    for (const migration of pending) {
      for (const statement of migration.statements) db.exec(statement);
      record.run(migration.version, migration.name, nowIso());
    }
    db.exec("COMMIT");
    return pending.map((m) => m.version);
  } catch (error) {
    rollBack(db);
    throw error;
  }
}

/**
 * Applies the set's missing steps on PostgreSQL in one transaction, under the set's advisory lock,
 * so instances that start together apply each step once. Returns their versions.
 */
export async function runPostgresMigrations(pool: PgPool, set: MigrationSet): Promise<number[]> {
  const table = tableName(set);
  return inTransaction(pool, "read committed", async (c: PgClient) => {
    await c.query("SELECT pg_advisory_xact_lock($1)", [set.lockKey ?? lockKeyOf(table)]);
    await c.query(recordTableDdl(table));
    const { rows } = await c.query(`SELECT version FROM ${table}`);
    const pending = pendingMigrations(set.migrations, versionsOf(rows), set.name);
    for (const migration of pending) {
      for (const statement of migration.statements) await c.query(statement);
      await c.query(`INSERT INTO ${table} (version, name, applied_at) VALUES ($1, $2, $3)`, [
        migration.version,
        migration.name,
        nowIso(),
      ]);
    }
    return pending.map((m) => m.version);
  });
}

/** SQLite ends a transaction by itself on some errors (a full disk): then there is nothing to roll back. */
function rollBack(db: SqliteMigrationTarget): void {
  try {
    db.exec("ROLLBACK");
  } catch {
    // No transaction is open any more; the error that brought us here is the one to report.
  }
}

function recordTableDdl(table: string): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at text NOT NULL
)`;
}

/** A table name cannot be a parameter: it is checked to be a plain identifier before it reaches SQL. */
function tableName(set: MigrationSet): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(set.table)) {
    throw new Error(`Migration set ${set.name}: ${JSON.stringify(set.table)} is not a plain table name`);
  }
  return set.table;
}

function versionsOf(rows: ReadonlyArray<{ version?: unknown }>): Set<number> {
  return new Set(rows.map((row) => Number(row.version)));
}

/** A stable 32-bit key from the table name (FNV-1a), so each set has its own advisory lock. */
function lockKeyOf(table: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < table.length; i++) hash = Math.imul(hash ^ table.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}
