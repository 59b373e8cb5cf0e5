/** `sessiontree/sqlite`: the SQLite backend, kept out of the core import so better-sqlite3 loads only here. */

// Payloads out of line (docs/stores.md): the blob stores these SQL stores take as `blobs`.
export type { BlobMaintenance } from "../blob/blob-maintenance.js";
export type { BlobStore } from "../blob/blob-store.js";
export { FsBlobStore } from "../blob/fs-blob-store.js";
export { defaultBlobLocation, openBlobStore } from "../blob/open-blob-store.js";
export type { OffloadPolicy } from "../blob/payload-refs.js";
export type { BlobOptions } from "../blob/sql-payloads.js";
export { SQLITE_MIGRATIONS, SQLITE_SCHEMA } from "./schema.js";
export type { SqliteDatabase, SqliteStatement, SqliteStoreOptions } from "./sqlite-config.js";
export { SqliteStore } from "./sqlite-store.js";
