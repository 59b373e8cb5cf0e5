import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { ValidationError } from "../core/errors.js";
import { resolveStoreBackend, type StoreBackend } from "../store/registry.js";
import type { SessionStore } from "../store/store.js";
import type { ServiceDb } from "./db/service-db.js";
import { SERVICE_HOSTS, type ServiceHost } from "./db/service-hosts.js";
import { DEFAULT_DATA } from "./options.js";

export interface BackendOptions {
  /** Data folder of the embedded SQLite database, used when `database` is not given. */
  data?: string;
  /** A store location (see the store registry) of a kind the server keeps its tables in: postgres://… */
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

/** Opens the server's own tables (keys, audit, idempotency) where the sessions live. Used by `keys` too. */
export async function openServiceDb(options: BackendOptions): Promise<ServiceDb> {
  const location = storeLocation(options);
  const db = serviceHost(resolveStoreBackend(location)).openTables(location);
  try {
    await db.migrate();
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

/**
 * The session store and the server's tables: a given store (tables in `database` or `data`), or
 * the store the registry opens at `database`, else SQLite in the data folder; the store and the
 * tables then share one connection or pool.
 */
export async function openBackends(options: BackendOptions): Promise<Backends> {
  if (options.store) return { store: options.store, db: await openServiceDb(options), ownsStore: false };
  const location = storeLocation(options);
  const backend = resolveStoreBackend(location);
  return serviceHost(backend).openWithStore(backend, location, options);
}

/**
 * `database` as given, else the embedded database file in the data folder (created if missing).
 * An empty `database` is no location (an empty SESSIONTREE_DATABASE=): the data folder is used.
 */
function storeLocation(options: BackendOptions): string {
  if (options.database) return options.database;
  const data = options.data ?? DEFAULT_DATA;
  mkdirSync(data, { recursive: true });
  return `sqlite:${join(resolve(data), "sessiontree.db")}`;
}

function serviceHost(backend: StoreBackend): ServiceHost {
  const host = SERVICE_HOSTS[backend.kind];
  if (host) return host;
  throw new ValidationError(
    "invalid_argument",
    `The server keeps its keys and audit log beside the sessions, in ${Object.keys(SERVICE_HOSTS).join(" or ")}; not in ${backend.kind}`,
  );
}
