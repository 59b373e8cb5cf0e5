import { statSync } from "node:fs";
import { resolve } from "node:path";
import Database from "better-sqlite3";
import { runSqliteMigrations } from "../../store/migrations.js";
import { upgradeSqliteRecordTable } from "./legacy-record-table.js";
import type { ServiceDb } from "./service-db.js";
import { serviceMigrationSet } from "./service-migrations.js";
import { type ServiceSql, SqlServiceDb } from "./sql-service-db.js";

/**
 * The server's tables in the SQLite file the store uses. A file name opens a connection of its own;
 * an open database (normally the store's) is shared and left open.
 */
export function sqliteServiceDb(database: string | Database.Database): ServiceDb {
  return new SqlServiceDb(new SqliteServiceSql(database));
}

class SqliteServiceSql implements ServiceSql {
  readonly kind = "sqlite";
  private readonly db: Database.Database;
  private readonly ownsDb: boolean;
  /** A connection handed in is the store's (service-hosts.ts): store writes carry our rows. */
  readonly shared: boolean;
  private readonly statements = new Map<string, Database.Statement>();
  /** The database file as opened; null in memory. */
  private readonly file: FileIdentity | null;

  constructor(database: string | Database.Database) {
    this.ownsDb = typeof database === "string";
    this.shared = !this.ownsDb;
    this.db = typeof database === "string" ? new Database(database) : database;
    this.file = identityOf(this.db);
    if (this.ownsDb) {
      this.db.pragma("journal_mode = WAL");
      this.db.pragma("busy_timeout = 5000");
      this.db.pragma("synchronous = NORMAL");
    }
  }

  async all<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
    return this.statement(sql).all(...params) as T[];
  }

  async run(sql: string, params: readonly unknown[]): Promise<number> {
    return this.statement(sql).run(...params).changes;
  }

  /**
   * A query, and the file at the path still the one opened: a connection keeps writing to a file
   * removed (or replaced: a copy moved over it) under it, and those writes are gone at the next start.
   */
  async ready(): Promise<void> {
    this.statement("SELECT 1").get();
    if (this.file === null) return;
    let now: { dev: number; ino: number } | undefined;
    try {
      now = statSync(this.file.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    if (now === undefined) throw new Error(`The database file ${this.file.path} was removed`);
    if (now.dev !== this.file.dev || now.ino !== this.file.ino)
      throw new Error(`The database file ${this.file.path} was replaced by another file`);
  }

  async migrate(): Promise<void> {
    upgradeSqliteRecordTable(this.db);
    runSqliteMigrations(this.db, serviceMigrationSet("sqlite"));
  }

  async close(): Promise<void> {
    if (this.ownsDb && this.db.open) this.db.close();
  }

  /**
   * Prepared once per SQL text: preparing costs more than running these small queries. `$n`
   * becomes `?`: the parameters come in the placeholders' order (see ServiceSql).
   */
  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql.replace(/\$\d+/g, "?"));
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

interface FileIdentity {
  path: string;
  dev: number;
  ino: number;
}

/** The open database's file, by device and inode; null for an in-memory or temporary database. */
function identityOf(db: Database.Database): FileIdentity | null {
  if (db.memory || db.name === "" || db.name === ":memory:") return null;
  const path = resolve(db.name);
  const { dev, ino } = statSync(path);
  return { path, dev, ino };
}
