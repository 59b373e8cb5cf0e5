/**
 * The store layer without heavy drivers: the `SessionStore` contract, the memory and JSONL backends,
 * the engine a new backend's driver plugs into, the backend registry and the migration runner.
 * SQLite and PostgreSQL come from `sessiontree/sqlite` and `sessiontree/postgres`.
 */

export { type ListQuery, selectPage } from "./engine/cursor.js";
export {
  type FoundSession,
  HIDDEN_ID,
  type InsertOutcome,
  type NewSession,
  type PurgedSession,
  type ReadTx,
  type SessionKey,
  type StoreDriver,
  type StoredId,
  type WriteTx,
} from "./engine/driver.js";
export { createStore, EngineStore } from "./engine/engine-store.js";
export type { DriverStep } from "./engine/step.js";
export { detachedEntry, entryJson } from "./engine/validate-batch.js";
export { JsonlStore } from "./jsonl/jsonl-store.js";
export type { JsonlStoreOptions } from "./jsonl/jsonl-store-config.js";
export { MemoryStore } from "./memory/memory-store.js";
export {
  type Migration,
  type MigrationSet,
  pendingMigrations,
  runPostgresMigrations,
  runSqliteMigrations,
  SchemaTooNewError,
  type SqliteMigrationTarget,
} from "./migrations.js";
export {
  jsonlBackend,
  memoryBackend,
  openStore,
  postgresBackend,
  registerStoreBackend,
  resolveStoreBackend,
  type StoreBackend,
  sqliteBackend,
  storeBackends,
} from "./registry.js";
export type * from "./store.js";
export { searchText } from "./summary.js";
