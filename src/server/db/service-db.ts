/**
 * The server's own tables, kept apart from the store's: API keys, the deletion audit log and
 * remembered idempotent responses. They live in the same database as the sessions (the SQLite file
 * or the PostgreSQL database), so several server instances share them.
 */
export interface ServiceDb {
  readonly kind: "sqlite" | "postgres";
  /** Versioned, idempotent; safe when several instances start at once. */
  migrate(): Promise<void>;
  close(): Promise<void>;

  insertKey(row: ApiKeyRow): Promise<void>;
  findKey(id: string): Promise<ApiKeyRow | undefined>;
  listKeys(userId: string): Promise<ApiKeyRow[]>;
  /** True when a live key of this user was revoked now. */
  revokeKey(userId: string, id: string, at: string): Promise<boolean>;

  recordDeletion(row: DeletionRow): Promise<void>;
  listDeletions(owner: string, limit: number): Promise<DeletionRow[]>;

  /**
   * Claims an idempotency key for one request. "claimed": go ahead, then `completeIdempotent` or
   * `releaseIdempotent`. Otherwise the stored row: pending (another request holds it) or done.
   */
  claimIdempotent(
    owner: string,
    key: string,
    requestHash: string,
    at: string,
  ): Promise<"claimed" | IdempotencyRow>;
  completeIdempotent(owner: string, key: string, response: StoredResponse): Promise<void>;
  releaseIdempotent(owner: string, key: string): Promise<void>;
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
  /** ISO time of the claim. */
  claimedAt: string;
  /** Null while the first request is still running. */
  response: StoredResponse | null;
}
