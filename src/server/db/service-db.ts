import type { TxSql } from "../../store/store.js";

/**
 * The server's own tables, kept apart from the store's: API keys, the deletion audit log and
 * remembered idempotent responses. They live in the same database as the sessions (the SQLite file
 * or the PostgreSQL database), so several server instances share them.
 */
export interface ServiceDb {
  readonly kind: "sqlite" | "postgres";
  /**
   * True when the tables share the store's connection or pool (the server opened both): rows that
   * go with a store write (tx-rows.ts) are then written in its transaction. Otherwise (a store
   * passed in) they are written on `sql` right after it.
   */
  readonly sharesStoreTransactions: boolean;
  /** The tables' own connection, outside any store write. */
  readonly sql: TxSql;
  /**
   * Resolves when the database can serve: it answers a query, and an SQLite file is still the one
   * opened (a file removed or replaced under a running server would take acknowledged writes into
   * a file no one will open again). Rejects saying why.
   */
  ready(): Promise<void>;
  /** Versioned, idempotent; safe when several instances start at once. */
  migrate(): Promise<void>;
  close(): Promise<void>;

  insertKey(row: ApiKeyRow): Promise<void>;
  /** The key and whether its user is disabled, in one query: what authenticating a request reads. */
  findKey(id: string): Promise<KeyForAuth | undefined>;
  listKeys(userId: string): Promise<ApiKeyRow[]>;
  /** True when a live key of this user was revoked now. */
  revokeKey(userId: string, id: string, at: string): Promise<boolean>;
  /**
   * Inserts the key if its user holds fewer than `cap` keys neither revoked nor expired at `now`,
   * counted and inserted in one statement; false when the cap is reached.
   */
  insertKeyUnderCap(row: ApiKeyRow, cap: number, now: string): Promise<boolean>;
  /** Records a use at `at`, unless one was recorded after `since` (one write a minute, not per request). */
  touchKey(id: string, at: string, since: string): Promise<void>;

  /** Refuses the user on every request from now on; false when already disabled. */
  disableUser(row: DisabledUserRow): Promise<boolean>;
  /** False when the user was not disabled. */
  enableUser(userId: string): Promise<boolean>;
  findDisabledUser(userId: string): Promise<DisabledUserRow | undefined>;
  listDisabledUsers(): Promise<DisabledUserRow[]>;

  recordDeletion(row: DeletionRow): Promise<void>;
  listDeletions(owner: string, limit: number): Promise<DeletionRow[]>;

  /**
   * The response remembered under a user's key, if any. Rows are only ever written complete, in
   * the transaction of the write they answer (tx-rows.ts): there is no pending state.
   */
  findIdempotent(owner: string, key: string): Promise<IdempotencyRow | undefined>;
  /** Forgets keys claimed before `cutoff`. Returns how many. */
  sweepIdempotent(cutoff: string): Promise<number>;
}

export interface ApiKeyRow {
  id: string;
  userId: string;
  name: string;
  keyHash: string;
  createdAt: string;
  revokedAt: string | null;
  /** Refused from this ISO time on; null: until revoked. */
  expiresAt: string | null;
  /** Last request it authenticated, to the minute; null: never used. */
  lastUsedAt: string | null;
}

export interface KeyForAuth extends ApiKeyRow {
  /** The key's user is disabled (disabled_users holds it). */
  userDisabled: boolean;
}

export interface DisabledUserRow {
  userId: string;
  disabledAt: string;
  reason: string;
}

export type DeletionAction = "delete" | "restore" | "purge" | "retention_purge";

export interface DeletionRow {
  owner: string;
  sessionId: string;
  action: DeletionAction;
  /** The credential that asked (`key:<id>`, `jwt:<sub>`) or `system` for retention. */
  actor: string;
  /** "api", "retention" or "cli". */
  via: string;
  at: string;
}

export interface StoredResponse {
  status: number;
  body: string;
  contentType: string;
  etag: string | null;
}

export interface IdempotencyRow {
  requestHash: string;
  /** ISO time of the write. */
  createdAt: string;
  response: StoredResponse;
  /** The session the response tells about (null for rows written before servers recorded it). */
  sessionId: string | null;
}
