import pg from "pg";
import { runPostgresMigrations } from "../../store/migrations.js";
import { upgradePostgresRecordTable } from "./legacy-record-table.js";
import type { ServiceDb } from "./service-db.js";
import { serviceMigrationSet } from "./service-migrations.js";
import { type ServiceSql, SqlServiceDb } from "./sql-service-db.js";

export function newPool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on("error", () => {});
  return pool;
}

/**
 * The server's tables in the sessions' PostgreSQL database. A URL opens a small pool of its own;
 * a pool (normally the store's) is shared and left open.
 */
export function postgresServiceDb(database: string | pg.Pool): ServiceDb {
  return new SqlServiceDb(new PostgresServiceSql(database));
}

class PostgresServiceSql implements ServiceSql {
  readonly kind = "postgres";
  private readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  /** A connection handed in is the store's (service-hosts.ts): store writes carry our rows. */
  readonly shared: boolean;
  private closed = false;

  constructor(database: string | pg.Pool) {
    this.ownsPool = typeof database === "string";
    this.shared = !this.ownsPool;
    this.pool = typeof database === "string" ? newPool(database, 2) : database;
  }

  async all<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
    return (await this.pool.query(sql, [...params])).rows as T[];
  }

  async run(sql: string, params: readonly unknown[]): Promise<number> {
    return (await this.pool.query(sql, [...params])).rowCount ?? 0;
  }

  async ready(): Promise<void> {
    await this.pool.query("SELECT 1");
  }

  async migrate(): Promise<void> {
    await upgradePostgresRecordTable(this.pool);
    await runPostgresMigrations(this.pool, serviceMigrationSet("postgres"));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsPool) await this.pool.end();
  }
}
