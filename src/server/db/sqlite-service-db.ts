import Database from "better-sqlite3";
import type { ApiKeyRow, DeletionRow, IdempotencyRow, ServiceDb, StoredResponse } from "./service-db.js";

const MIGRATIONS: string[] = [
  `CREATE TABLE IF NOT EXISTS api_keys (
     id TEXT PRIMARY KEY, user_id TEXT NOT NULL, name TEXT NOT NULL, key_hash TEXT NOT NULL,
     created_at TEXT NOT NULL, revoked_at TEXT);
   CREATE INDEX IF NOT EXISTS api_keys_user ON api_keys (user_id);
   CREATE TABLE IF NOT EXISTS deletion_audit (
     seq INTEGER PRIMARY KEY AUTOINCREMENT, owner TEXT NOT NULL, session_id TEXT NOT NULL,
     action TEXT NOT NULL, actor TEXT NOT NULL, via TEXT NOT NULL, at TEXT NOT NULL);
   CREATE INDEX IF NOT EXISTS deletion_audit_owner ON deletion_audit (owner, seq);
   CREATE TABLE IF NOT EXISTS idempotency_keys (
     owner TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL, created_at TEXT NOT NULL,
     status INTEGER, body TEXT, content_type TEXT, etag TEXT, PRIMARY KEY (owner, key));`,
];

interface KeyRecord {
  id: string;
  user_id: string;
  name: string;
  key_hash: string;
  created_at: string;
  revoked_at: string | null;
}

interface IdemRecord {
  request_hash: string;
  created_at: string;
  status: number | null;
  body: string | null;
  content_type: string | null;
  etag: string | null;
}

const toKey = (r: KeyRecord): ApiKeyRow => ({
  id: r.id,
  userId: r.user_id,
  name: r.name,
  keyHash: r.key_hash,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

/** The server's tables in the SQLite file the store uses, normally over the store's own connection. */
export class SqliteServiceDb implements ServiceDb {
  readonly kind = "sqlite";
  private readonly db: Database.Database;
  private readonly ownsDb: boolean;

  /** A file name opens a connection of its own; an open database (the store's) is shared and left open. */
  constructor(database: string | Database.Database) {
    this.ownsDb = typeof database === "string";
    this.db = typeof database === "string" ? new Database(database) : database;
    if (this.ownsDb) {
      this.db.pragma("journal_mode = WAL");
      this.db.pragma("busy_timeout = 5000");
      this.db.pragma("synchronous = NORMAL");
    }
  }

  private readonly statements = new Map<string, Database.Statement>();

  /** Prepared once per SQL text: preparing costs more than running these small queries. */
  private sql(source: string): Database.Statement {
    let statement = this.statements.get(source);
    if (!statement) {
      statement = this.db.prepare(source);
      this.statements.set(source, statement);
    }
    return statement;
  }

  async migrate(): Promise<void> {
    this.db.exec("CREATE TABLE IF NOT EXISTS sessiontree_server_migrations (version INTEGER PRIMARY KEY)");
    const apply = this.db.transaction(() => {
      const row = this.sql("SELECT MAX(version) AS v FROM sessiontree_server_migrations").get() as {
        v: number | null;
      };
      for (let version = (row.v ?? 0) + 1; version <= MIGRATIONS.length; version++) {
        this.db.exec(MIGRATIONS[version - 1] as string);
        this.sql("INSERT INTO sessiontree_server_migrations (version) VALUES (?)").run(version);
      }
    });
    apply.immediate();
  }

  async close(): Promise<void> {
    if (this.ownsDb && this.db.open) this.db.close();
  }

  async insertKey(row: ApiKeyRow): Promise<void> {
    this.sql(
      "INSERT INTO api_keys (id, user_id, name, key_hash, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?)",
    ).run(row.id, row.userId, row.name, row.keyHash, row.createdAt, row.revokedAt);
  }

  async findKey(id: string): Promise<ApiKeyRow | undefined> {
    const row = this.sql("SELECT * FROM api_keys WHERE id = ?").get(id) as KeyRecord | undefined;
    return row && toKey(row);
  }

  async listKeys(userId: string): Promise<ApiKeyRow[]> {
    const rows = this.sql("SELECT * FROM api_keys WHERE user_id = ? ORDER BY created_at, id").all(userId);
    return (rows as KeyRecord[]).map(toKey);
  }

  async revokeKey(userId: string, id: string, at: string): Promise<boolean> {
    const result = this.sql(
      "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL",
    ).run(at, id, userId);
    return result.changes > 0;
  }

  async recordDeletion(row: DeletionRow): Promise<void> {
    this.sql(
      "INSERT INTO deletion_audit (owner, session_id, action, actor, via, at) VALUES (?, ?, ?, ?, ?, ?)",
    ).run(row.owner, row.sessionId, row.action, row.actor, row.via, row.at);
  }

  async listDeletions(owner: string, limit: number): Promise<DeletionRow[]> {
    const rows = this.sql(
      "SELECT owner, session_id AS sessionId, action, actor, via, at FROM deletion_audit WHERE owner = ? ORDER BY seq DESC LIMIT ?",
    ).all(owner, limit);
    return rows as DeletionRow[];
  }

  async claimIdempotent(
    owner: string,
    key: string,
    requestHash: string,
    at: string,
  ): Promise<"claimed" | IdempotencyRow> {
    const inserted = this.sql(
      "INSERT INTO idempotency_keys (owner, key, request_hash, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
    ).run(owner, key, requestHash, at);
    if (inserted.changes > 0) return "claimed";
    const row = this.sql(
      "SELECT request_hash, created_at, status, body, content_type, etag FROM idempotency_keys WHERE owner = ? AND key = ?",
    ).get(owner, key) as IdemRecord | undefined;
    if (!row) return this.claimIdempotent(owner, key, requestHash, at);
    return toIdempotency(row);
  }

  async completeIdempotent(owner: string, key: string, response: StoredResponse): Promise<void> {
    this.sql(
      "UPDATE idempotency_keys SET status = ?, body = ?, content_type = ?, etag = ? WHERE owner = ? AND key = ?",
    ).run(response.status, response.body, response.contentType, response.etag, owner, key);
  }

  async releaseIdempotent(owner: string, key: string): Promise<void> {
    this.sql("DELETE FROM idempotency_keys WHERE owner = ? AND key = ? AND status IS NULL").run(owner, key);
  }

  async sweepIdempotent(cutoff: string): Promise<number> {
    return this.sql("DELETE FROM idempotency_keys WHERE created_at < ?").run(cutoff).changes;
  }
}

export function toIdempotency(row: IdemRecord): IdempotencyRow {
  const response =
    row.status === null
      ? null
      : {
          status: row.status,
          body: row.body ?? "",
          contentType: row.content_type ?? "application/json",
          etag: row.etag,
        };
  return { requestHash: row.request_hash, claimedAt: row.created_at, response };
}
