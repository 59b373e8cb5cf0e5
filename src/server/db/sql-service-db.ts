import type { ApiKeyRow, DeletionRow, IdempotencyRow, ServiceDb, StoredResponse } from "./service-db.js";
import { type IdempotencyRecord, type KeyRecord, toIdempotency, toKey } from "./service-rows.js";

/**
 * What the server's tables need of a database. Both drivers take the SQL below as written:
 * placeholders `$1, $2…`, numbered in the order of the parameters and each used once.
 */
export interface ServiceSql {
  readonly kind: ServiceDb["kind"];
  all<T>(sql: string, params: readonly unknown[]): Promise<T[]>;
  /** Runs a statement; resolves with the number of rows it changed. */
  run(sql: string, params: readonly unknown[]): Promise<number>;
  migrate(): Promise<void>;
  close(): Promise<void>;
}

const SQL = {
  insertKey:
    "INSERT INTO api_keys (id, user_id, name, key_hash, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6)",
  findKey: "SELECT * FROM api_keys WHERE id = $1",
  listKeys: "SELECT * FROM api_keys WHERE user_id = $1 ORDER BY created_at, id",
  revokeKey: "UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND user_id = $3 AND revoked_at IS NULL",
  recordDeletion:
    "INSERT INTO deletion_audit (owner, session_id, action, actor, via, at) VALUES ($1, $2, $3, $4, $5, $6)",
  listDeletions: `SELECT owner, session_id AS "sessionId", action, actor, via, at FROM deletion_audit
                  WHERE owner = $1 ORDER BY seq DESC LIMIT $2`,
  claimIdempotent:
    "INSERT INTO idempotency_keys (owner, key, request_hash, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
  findIdempotent:
    "SELECT request_hash, created_at, status, body, content_type, etag FROM idempotency_keys WHERE owner = $1 AND key = $2",
  completeIdempotent:
    "UPDATE idempotency_keys SET status = $1, body = $2, content_type = $3, etag = $4 WHERE owner = $5 AND key = $6",
  releaseIdempotent: "DELETE FROM idempotency_keys WHERE owner = $1 AND key = $2 AND status IS NULL",
  sweepIdempotent: "DELETE FROM idempotency_keys WHERE created_at < $1",
} as const;

/** The server's tables (see ServiceDb), in the same SQL on SQLite and PostgreSQL. */
export class SqlServiceDb implements ServiceDb {
  readonly kind: ServiceDb["kind"];

  constructor(private readonly db: ServiceSql) {
    this.kind = db.kind;
  }

  migrate(): Promise<void> {
    return this.db.migrate();
  }

  close(): Promise<void> {
    return this.db.close();
  }

  async insertKey(row: ApiKeyRow): Promise<void> {
    await this.db.run(SQL.insertKey, [
      row.id,
      row.userId,
      row.name,
      row.keyHash,
      row.createdAt,
      row.revokedAt,
    ]);
  }

  async findKey(id: string): Promise<ApiKeyRow | undefined> {
    const [record] = await this.db.all<KeyRecord>(SQL.findKey, [id]);
    return record && toKey(record);
  }

  async listKeys(userId: string): Promise<ApiKeyRow[]> {
    return (await this.db.all<KeyRecord>(SQL.listKeys, [userId])).map(toKey);
  }

  async revokeKey(userId: string, id: string, at: string): Promise<boolean> {
    return (await this.db.run(SQL.revokeKey, [at, id, userId])) > 0;
  }

  async recordDeletion(row: DeletionRow): Promise<void> {
    const { owner, sessionId, action, actor, via, at } = row;
    await this.db.run(SQL.recordDeletion, [owner, sessionId, action, actor, via, at]);
  }

  listDeletions(owner: string, limit: number): Promise<DeletionRow[]> {
    return this.db.all<DeletionRow>(SQL.listDeletions, [owner, limit]);
  }

  async claimIdempotent(
    owner: string,
    key: string,
    requestHash: string,
    at: string,
  ): Promise<"claimed" | IdempotencyRow> {
    if ((await this.db.run(SQL.claimIdempotent, [owner, key, requestHash, at])) > 0) return "claimed";
    const [record] = await this.db.all<IdempotencyRecord>(SQL.findIdempotent, [owner, key]);
    // Released between the two statements: the key is free again, claim it anew.
    if (!record) return this.claimIdempotent(owner, key, requestHash, at);
    return toIdempotency(record);
  }

  async completeIdempotent(owner: string, key: string, response: StoredResponse): Promise<void> {
    const { status, body, contentType, etag } = response;
    await this.db.run(SQL.completeIdempotent, [status, body, contentType, etag, owner, key]);
  }

  async releaseIdempotent(owner: string, key: string): Promise<void> {
    await this.db.run(SQL.releaseIdempotent, [owner, key]);
  }

  sweepIdempotent(cutoff: string): Promise<number> {
    return this.db.run(SQL.sweepIdempotent, [cutoff]);
  }
}
