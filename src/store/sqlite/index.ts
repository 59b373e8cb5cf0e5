/** `sessiontree/sqlite`: the SQLite backend, kept out of the core import so better-sqlite3 loads only here. */
export { SQLITE_MIGRATIONS, SQLITE_SCHEMA } from "./schema.js";
export type { SqliteDatabase, SqliteStatement, SqliteStoreOptions } from "./sqlite-config.js";
export { SqliteStore } from "./sqlite-store.js";
