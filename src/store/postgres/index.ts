/** `sessiontree/postgres`: the PostgreSQL backend, kept out of the core import so pg loads only here. */

// Payloads out of line (docs/stores.md): the blob stores these SQL stores take as `blobs`.
export type { BlobMaintenance } from "../blob/blob-maintenance.js";
export type { BlobStore } from "../blob/blob-store.js";
export { FsBlobStore } from "../blob/fs-blob-store.js";
export { defaultBlobLocation, openBlobStore } from "../blob/open-blob-store.js";
export type { OffloadPolicy } from "../blob/payload-refs.js";
export type { BlobOptions } from "../blob/sql-payloads.js";
export type { PgClient, PgPool, PgResult } from "./connection.js";
export type { PostgresStoreOptions } from "./postgres-config.js";
export { PostgresStore } from "./postgres-store.js";
export { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA } from "./schema.js";
