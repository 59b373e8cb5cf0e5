/** `sessiontree/postgres`: the PostgreSQL backend, kept out of the core import so pg loads only here. */
export type { PgClient, PgPool, PgResult } from "./connection.js";
export type { PostgresStoreOptions } from "./postgres-config.js";
export { PostgresStore } from "./postgres-store.js";
export { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA } from "./schema.js";
