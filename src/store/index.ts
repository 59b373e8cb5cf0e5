/**
 * The store layer without heavy drivers: the `SessionStore` contract, the memory and JSONL backends.
 * SQLite and PostgreSQL come from `sessiontree/sqlite` and `sessiontree/postgres`.
 */

export { JsonlStore } from "./jsonl/jsonl-store.js";
export type { JsonlStoreOptions } from "./jsonl/jsonl-store-config.js";
export { MemoryStore } from "./memory/memory-store.js";
export type * from "./store.js";
