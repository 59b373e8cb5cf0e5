import type { BlobOptions } from "../blob/sql-payloads.js";
import type { PgPool } from "./connection.js";

export interface PostgresStoreOptions {
  /** A `postgres://` URL. Used when `pool` is not given. */
  connectionString?: string;
  /** A `pg.Pool` (or anything shaped like one), or a function that returns one (called once, by `init`). */
  pool?: PgPool | (() => PgPool | Promise<PgPool>);
  /**
   * Connections in the pool the store creates itself.
   * @default 10
   */
  maxConnections?: number;
  /**
   * Rows per INSERT when a batch or an import is large (each INSERT sends parallel arrays).
   * @default 5000
   */
  insertChunk?: number;
  /**
   * Keep large payloads (images, long text parts) in this blob store, referenced from the entries
   * (see docs/stores.md, "Payloads out of line"). Absent: every payload stays in its row.
   */
  blobs?: BlobOptions;
}
