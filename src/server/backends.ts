import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { isSessionTreeError, SessionTreeError, ValidationError } from "../core/errors.js";
import type { BlobMaintenance } from "../store/blob/blob-maintenance.js";
import type { BlobStore } from "../store/blob/blob-store.js";
import { defaultBlobLocation, openBlobStore } from "../store/blob/open-blob-store.js";
import { redactPassword } from "../store/redact-location.js";
import { resolveStoreBackend, type StoreBackend } from "../store/registry.js";
import type { SessionStore } from "../store/store.js";
import type { ServiceDb } from "./db/service-db.js";
import { SERVICE_HOSTS, type ServiceHost } from "./db/service-hosts.js";
import { instrumentStore } from "./ops/instrument-store.js";
import { createOps, type Ops } from "./ops/ops.js";
import type { OpsOptions } from "./ops/ops-options.js";
import { DEFAULT_DATA } from "./options.js";

export interface BackendOptions extends OpsOptions {
  /** Data folder of the embedded SQLite database, used when `database` is not given. */
  data?: string;
  /** A store location (see the store registry) of a kind the server keeps its tables in: postgres://… */
  database?: string;
  store?: SessionStore;
  /** PostgreSQL connections per instance. @default 10 */
  poolSize?: number;
  /**
   * Where large payloads and archived sessions go: `file:FOLDER` or `s3://BUCKET/PREFIX`.
   * @default `file:` in `<data>/blobs` for the embedded SQLite; none for PostgreSQL (several
   * instances share it, so their blobs must be somewhere shared: name it)
   */
  blobs?: string;
  s3Endpoint?: string;
  s3PathStyle?: boolean;
}

export interface Backends {
  store: SessionStore;
  db: ServiceDb;
  /** Whether close() should close the store (not when the caller passed it in). */
  ownsStore: boolean;
  /** Closes what the store and the tables share (a connection or pool), after both closed. */
  close?: () => unknown;
  /** The operator's settings and the metrics the store is timed into (the server's `services.ops`). */
  ops: Ops;
  /** Blob collection and archive of the store, when it keeps payloads out of line; else null. */
  blobs: BlobMaintenance | null;
}

/** What a service host opens: the backends before the server's own instrumentation. */
export type OpenedBackends = Omit<Backends, "ops" | "blobs">;

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
  const ops = createOps(options);
  if (options.store) {
    const db = await openServiceDb(options);
    return withOps({ store: options.store, db, ownsStore: false }, ops);
  }
  const location = storeLocation(options);
  const backend = resolveStoreBackend(location);
  const blobs = await openServerBlobs(options, backend.kind, location);
  try {
    const host = serviceHost(backend);
    const opened = await host.openWithStore(
      backend,
      location,
      { poolSize: options.poolSize, blobs: blobs && { store: blobs } },
      ops.metrics,
    );
    return withOps({ ...opened, close: closeBoth(opened.close, blobs) }, ops);
  } catch (error) {
    await blobs?.close();
    throw cannotOpen(error, backend.kind, location);
  }
}

/**
 * A database the driver could not open or reach (refused, unknown host, wrong password, no such
 * database or folder, not a database): an `io_error` that says which one, password hidden, for
 * the operator reading the start-up's last line. Our own errors (a schema too new) pass as they
 * are, and so does anything else: a defect keeps its stack.
 */
function cannotOpen(error: unknown, kind: string, location: string): unknown {
  if (isSessionTreeError(error) || !(error instanceof Error) || !fromTheDriver(error)) return error;
  const where = redactPassword(location);
  return new SessionTreeError("io_error", `Cannot open the ${kind} database at ${where}: ${error.message}`, {
    cause: error,
  });
}

/** A system error (`ECONNREFUSED`…), a PostgreSQL or SQLite error, or better-sqlite3's refusal to open. */
function fromTheDriver(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" || /^Cannot open database\b/.test(error.message);
}

/** The store timed into the ops' metrics, with its blob maintenance (read before the proxy). */
function withOps(backends: OpenedBackends, ops: Ops): Backends {
  const blobs = (backends.store as { blobs?: BlobMaintenance | null }).blobs ?? null;
  const store = instrumentStore(backends.store, ops.metrics);
  return { ...backends, store, ops, blobs };
}

/** The blob store named by the options, else the embedded default (see `serverBlobLocation`). */
async function openServerBlobs(
  options: BackendOptions,
  kind: string,
  storeAt: string,
): Promise<BlobStore | undefined> {
  const location = serverBlobLocation(options.blobs, kind, storeAt);
  if (!location) return undefined;
  return openBlobStore(location, { s3Endpoint: options.s3Endpoint, s3PathStyle: options.s3PathStyle });
}

/**
 * Where the server keeps the blobs of a store of `kind` at `storeAt`: `blobs` when named, else the
 * embedded default, `blobs/` beside a SQLite file; none for PostgreSQL. `backup` and `restore` copy
 * the same place.
 */
export function serverBlobLocation(
  blobs: string | undefined,
  kind: string,
  storeAt: string,
): string | undefined {
  const file = kind === "sqlite" ? storeAt.replace(/^sqlite:/, "") : "";
  const embedded = file && file !== ":memory:" ? defaultBlobLocation(dirname(resolve(file))) : undefined;
  return blobs || embedded;
}

function closeBoth(shared: (() => unknown) | undefined, blobs: BlobStore | undefined) {
  return async () => {
    await shared?.();
    await blobs?.close();
  };
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
