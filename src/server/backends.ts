import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import { ValidationError } from "../core/errors.js";
import { PostgresStore } from "../store/postgres/index.js";
import { type SqliteDatabase, SqliteStore } from "../store/sqlite/index.js";
import type { SessionStore } from "../store/store.js";
import { newPool, PostgresServiceDb } from "./db/postgres-service-db.js";
import type { ServiceDb } from "./db/service-db.js";
import { SqliteServiceDb } from "./db/sqlite-service-db.js";
import { DEFAULT_DATA } from "./options.js";

export interface BackendOptions {
  data?: string;
  database?: string;
  store?: SessionStore;
  /** PostgreSQL connections per instance. @default 10 */
  poolSize?: number;
}

export interface Backends {
  store: SessionStore;
  db: ServiceDb;
  /** Whether close() should close the store (not when the caller passed it in). */
  ownsStore: boolean;
  /** Closes what the store and the tables share (a connection or pool), after both closed. */
  close?: () => unknown;
}

/** The embedded database file in a data folder: sessions and the server's tables together. */
export function sqliteFile(data: string): string {
  return join(resolve(data), "sessiontree.db");
}

export function isPostgresUrl(database: string | undefined): database is string {
  return database !== undefined && /^postgres(ql)?:\/\//.test(database);
}

/** Opens the server's own tables (keys, audit, idempotency) where the sessions live. Used by `keys` too. */
export async function openServiceDb(options: BackendOptions): Promise<ServiceDb> {
  const db = isPostgres(options)
    ? new PostgresServiceDb(options.database)
    : new SqliteServiceDb(dataFile(options));
  await db.migrate();
  return db;
}

function isPostgres(options: BackendOptions): options is BackendOptions & { database: string } {
  if (options.database === undefined) return false;
  if (!isPostgresUrl(options.database))
    throw new ValidationError("invalid_argument", "--database must be a postgres:// URL");
  return true;
}

function dataFile(options: BackendOptions): string {
  const data = options.data ?? DEFAULT_DATA;
  mkdirSync(data, { recursive: true });
  return sqliteFile(data);
}

/**
 * The session store and the server's tables: a given store (tables in `database` or `data`),
 * PostgreSQL for a postgres:// URL, else SQLite in the data folder over one shared connection.
 */
export async function openBackends(options: BackendOptions): Promise<Backends> {
  if (options.store) return { store: options.store, db: await openServiceDb(options), ownsStore: false };
  if (isPostgres(options)) {
    const pool = newPool(options.database, options.poolSize ?? 10);
    const store = new PostgresStore({ pool });
    const db = new PostgresServiceDb(pool);
    try {
      await store.init();
      await db.migrate();
    } catch (error) {
      await pool.end();
      throw error;
    }
    return { store, db, ownsStore: true, close: () => pool.end() };
  }
  const connection = new Database(dataFile(options));
  // The store types better-sqlite3 structurally and its `transaction` signature is narrower than
  // the driver's own typing; at runtime this is the very object it expects.
  const store = new SqliteStore({ database: connection as unknown as SqliteDatabase });
  const db = new SqliteServiceDb(connection);
  try {
    await store.init();
    await db.migrate();
  } catch (error) {
    connection.close();
    throw error;
  }
  return { store, db, ownsStore: true, close: () => connection.close() };
}
