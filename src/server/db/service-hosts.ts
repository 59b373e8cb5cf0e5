import Database from "better-sqlite3";
import type { BlobOptions } from "../../store/blob/sql-payloads.js";
import type { StoreBackend } from "../../store/registry.js";
import type { SqliteDatabase } from "../../store/sqlite/sqlite-config.js";
import type { SessionStore } from "../../store/store.js";
import type { OpenedBackends } from "../backends.js";
import type { ServerMetrics } from "../ops/metrics.js";
import { newPool, postgresServiceDb } from "./postgres-service-db.js";
import type { ServiceDb } from "./service-db.js";
import { sqliteServiceDb } from "./sqlite-service-db.js";

/** How the server keeps its tables in the database of one kind of store. */
export interface ServiceHost {
  /** The server's tables alone, on a connection of their own (the `keys` command), not migrated yet. */
  openTables(location: string): ServiceDb;
  /**
   * The store (opened through the registry) and the tables over one connection or pool, both
   * migrated; the store keeps large payloads in `blobs` when given.
   */
  openWithStore(
    backend: StoreBackend,
    location: string,
    options: { poolSize?: number; blobs?: BlobOptions },
    metrics?: ServerMetrics,
  ): Promise<OpenedBackends>;
}

/** The store kinds the server can run on, by the registry's `kind`. */
export const SERVICE_HOSTS: Readonly<Record<string, ServiceHost>> = {
  sqlite: {
    openTables: (location) => sqliteServiceDb(sqlitePath(location)),
    async openWithStore(backend, location, { blobs }) {
      const connection = new Database(sqlitePath(location));
      // The store types better-sqlite3 structurally and its `transaction` signature is narrower than
      // the driver's own typing; at runtime this is the very object it expects.
      const database = connection as unknown as SqliteDatabase;
      return initBoth(backend.open(location, { database, blobs }), sqliteServiceDb(connection), () =>
        connection.close(),
      );
    },
  },
  postgres: {
    openTables: (location) => postgresServiceDb(location),
    async openWithStore(backend, location, { poolSize, blobs }, metrics) {
      const pool = newPool(location, poolSize ?? 10);
      metrics?.watchPool("main", pool);
      return initBoth(backend.open(location, { pool, blobs }), postgresServiceDb(pool), () => pool.end());
    },
  },
};

/** Initialises the store, then migrates the tables; on failure the shared connection is closed. */
async function initBoth(
  opening: Promise<SessionStore>,
  db: ServiceDb,
  closeShared: () => unknown,
): Promise<OpenedBackends> {
  try {
    const store = await opening;
    await store.init();
    await db.migrate();
    return { store, db, ownsStore: true, close: closeShared };
  } catch (error) {
    await closeShared();
    throw error;
  }
}

/** The file of a `sqlite:<file>` (or bare `<file>.db`) location, as the registry's SQLite backend reads it. */
function sqlitePath(location: string): string {
  return location.startsWith("sqlite:") ? location.slice("sqlite:".length) : location;
}
