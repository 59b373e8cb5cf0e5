import pg from "pg";
import type { ApiKeyRow, DeletionRow, IdempotencyRow, ServiceDb, StoredResponse } from "./service-db.js";
import { toIdempotency } from "./sqlite-service-db.js";

const MIGRATIONS: string[] = [
  `CREATE TABLE IF NOT EXISTS api_keys (
     id TEXT PRIMARY KEY, user_id TEXT NOT NULL, name TEXT NOT NULL, key_hash TEXT NOT NULL,
     created_at TEXT NOT NULL, revoked_at TEXT);
   CREATE INDEX IF NOT EXISTS api_keys_user ON api_keys (user_id);
   CREATE TABLE IF NOT EXISTS deletion_audit (
     seq BIGSERIAL PRIMARY KEY, owner TEXT NOT NULL, session_id TEXT NOT NULL,
     action TEXT NOT NULL, actor TEXT NOT NULL, via TEXT NOT NULL, at TEXT NOT NULL);
   CREATE INDEX IF NOT EXISTS deletion_audit_owner ON deletion_audit (owner, seq);
   CREATE TABLE IF NOT EXISTS idempotency_keys (
     owner TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL, created_at TEXT NOT NULL,
     status INTEGER, body TEXT, content_type TEXT, etag TEXT, PRIMARY KEY (owner, key));`,
];

/** Any number that is ours alone: serializes concurrent migrations of several instances. */
const MIGRATION_LOCK = 0x5e55_1037;

interface KeyRecord {
  id: string;
  user_id: string;
  name: string;
  key_hash: string;
  created_at: string;
  revoked_at: string | null;
}

const toKey = (r: KeyRecord): ApiKeyRow => ({
  id: r.id,
  userId: r.user_id,
  name: r.name,
  keyHash: r.key_hash,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

export function newPool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on("error", () => {});
  return pool;
}

/** The server's tables in the sessions' PostgreSQL database, normally over the store's pool. */
export class PostgresServiceDb implements ServiceDb {
  readonly kind = "postgres";
  private readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  private closed = false;

  /** A URL opens a small pool of its own; a pool (the store's) is shared and left open. */
  constructor(database: string | pg.Pool) {
    this.ownsPool = typeof database === "string";
    this.pool = typeof database === "string" ? newPool(database, 2) : database;
  }

  async migrate(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
      await client.query(
        "CREATE TABLE IF NOT EXISTS sessiontree_server_migrations (version INTEGER PRIMARY KEY)",
      );
      const { rows } = await client.query<{ v: number | null }>(
        "SELECT MAX(version) AS v FROM sessiontree_server_migrations",
      );
      for (let version = (rows[0]?.v ?? 0) + 1; version <= MIGRATIONS.length; version++) {
        await client.query(MIGRATIONS[version - 1] as string);
        await client.query("INSERT INTO sessiontree_server_migrations (version) VALUES ($1)", [version]);
      }
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsPool) await this.pool.end();
  }

  async insertKey(row: ApiKeyRow): Promise<void> {
    await this.pool.query(
      "INSERT INTO api_keys (id, user_id, name, key_hash, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6)",
      [row.id, row.userId, row.name, row.keyHash, row.createdAt, row.revokedAt],
    );
  }

  async findKey(id: string): Promise<ApiKeyRow | undefined> {
    const { rows } = await this.pool.query<KeyRecord>("SELECT * FROM api_keys WHERE id = $1", [id]);
    return rows[0] && toKey(rows[0]);
  }

  async listKeys(userId: string): Promise<ApiKeyRow[]> {
    const sql = "SELECT * FROM api_keys WHERE user_id = $1 ORDER BY created_at, id";
    const { rows } = await this.pool.query<KeyRecord>(sql, [userId]);
    return rows.map(toKey);
  }

  async revokeKey(userId: string, id: string, at: string): Promise<boolean> {
    const sql = "UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND user_id = $3 AND revoked_at IS NULL";
    const result = await this.pool.query(sql, [at, id, userId]);
    return (result.rowCount ?? 0) > 0;
  }

  async recordDeletion(row: DeletionRow): Promise<void> {
    await this.pool.query(
      "INSERT INTO deletion_audit (owner, session_id, action, actor, via, at) VALUES ($1, $2, $3, $4, $5, $6)",
      [row.owner, row.sessionId, row.action, row.actor, row.via, row.at],
    );
  }

  async listDeletions(owner: string, limit: number): Promise<DeletionRow[]> {
    const sql = `SELECT owner, session_id AS "sessionId", action, actor, via, at FROM deletion_audit
                 WHERE owner = $1 ORDER BY seq DESC LIMIT $2`;
    const { rows } = await this.pool.query<DeletionRow>(sql, [owner, limit]);
    return rows;
  }

  async claimIdempotent(
    owner: string,
    key: string,
    requestHash: string,
    at: string,
  ): Promise<"claimed" | IdempotencyRow> {
    const inserted = await this.pool.query(
      "INSERT INTO idempotency_keys (owner, key, request_hash, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
      [owner, key, requestHash, at],
    );
    if ((inserted.rowCount ?? 0) > 0) return "claimed";
    const { rows } = await this.pool.query(
      "SELECT request_hash, created_at, status, body, content_type, etag FROM idempotency_keys WHERE owner = $1 AND key = $2",
      [owner, key],
    );
    if (!rows[0]) return this.claimIdempotent(owner, key, requestHash, at);
    return toIdempotency(rows[0]);
  }

  async completeIdempotent(owner: string, key: string, response: StoredResponse): Promise<void> {
    await this.pool.query(
      "UPDATE idempotency_keys SET status = $1, body = $2, content_type = $3, etag = $4 WHERE owner = $5 AND key = $6",
      [response.status, response.body, response.contentType, response.etag, owner, key],
    );
  }

  async releaseIdempotent(owner: string, key: string): Promise<void> {
    const sql = "DELETE FROM idempotency_keys WHERE owner = $1 AND key = $2 AND status IS NULL";
    await this.pool.query(sql, [owner, key]);
  }

  async sweepIdempotent(cutoff: string): Promise<number> {
    const result = await this.pool.query("DELETE FROM idempotency_keys WHERE created_at < $1", [cutoff]);
    return result.rowCount ?? 0;
  }
}
