import type { BlobOptions } from "../blob/sql-payloads.js";
/** What the store needs of a better-sqlite3 statement (typed structurally: no import of the driver). */
export interface SqliteStatement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** What the store needs of a better-sqlite3 `Database`. */
export interface SqliteDatabase {
  prepare(source: string): SqliteStatement;
  exec(source: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** better-sqlite3's transaction wrapper; `immediate()` runs it as BEGIN IMMEDIATE. */
  transaction(fn: () => unknown): { (): unknown; immediate(): unknown };
  /** Whether a transaction is open (an error may have rolled it back whole). */
  readonly inTransaction: boolean;
  close(): unknown;
}

export interface SqliteStoreOptions {
  /**
   * Database file, created if missing (its folder must exist). Used when `database` is not given.
   * @default ":memory:"
   */
  path?: string;
  /** An open better-sqlite3 database, or a function that returns one (called once, by `init`). */
  database?: SqliteDatabase | (() => SqliteDatabase | Promise<SqliteDatabase>);
  /**
   * How long a writer waits for another process's write lock before failing.
   * @default 5000
   */
  busyTimeoutMs?: number;
  /**
   * Keep large payloads (images, long text parts) in this blob store, referenced from the entries
   * (see docs/stores.md, "Payloads out of line"). Absent: every payload stays in its row.
   */
  blobs?: BlobOptions;
}
