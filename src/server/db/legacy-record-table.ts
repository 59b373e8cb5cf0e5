import type { SqliteMigrationTarget } from "../../store/migrations.js";
import type { PgPool } from "../../store/postgres/connection.js";
import { SERVICE_MIGRATIONS_TABLE } from "./service-migrations.js";

/**
 * Servers before the shared migration runner recorded their steps in a table with a `version`
 * column only; the runner also writes each step's name and time. The columns are added (empty for
 * the steps already recorded) so the next step can be recorded. Idempotent; the runner then finds
 * the versions it expects.
 */
export function upgradeSqliteRecordTable(db: SqliteMigrationTarget): void {
  const columns = db.prepare(`PRAGMA table_info(${SERVICE_MIGRATIONS_TABLE})`).all() as Array<{
    name: string;
  }>;
  const has = new Set(columns.map((column) => column.name));
  if (!has.has("version")) return;
  for (const column of ["name", "applied_at"]) {
    if (!has.has(column))
      db.exec(`ALTER TABLE ${SERVICE_MIGRATIONS_TABLE} ADD COLUMN ${column} TEXT NOT NULL DEFAULT ''`);
  }
}

/** The same on PostgreSQL: IF NOT EXISTS lets instances that start together both run it. */
export async function upgradePostgresRecordTable(pool: PgPool): Promise<void> {
  const { rows } = await pool.query(
    "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1",
    [SERVICE_MIGRATIONS_TABLE],
  );
  const has = new Set(rows.map((row) => row.column_name));
  if (!has.has("version") || (has.has("name") && has.has("applied_at"))) return;
  await pool.query(
    `ALTER TABLE ${SERVICE_MIGRATIONS_TABLE}
       ADD COLUMN IF NOT EXISTS name text NOT NULL DEFAULT '',
       ADD COLUMN IF NOT EXISTS applied_at text NOT NULL DEFAULT ''`,
  );
}
