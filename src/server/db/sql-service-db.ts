import { runFlow } from "../../store/engine/step.js";
import type { TxSql } from "../../store/store.js";
import { KeyLookups, nextTurn } from "./key-lookups.js";
import type {
  ApiKeyRow,
  DeletionRow,
  DisabledUserRow,
  IdempotencyRow,
  KeyForAuth,
  ServiceDb,
} from "./service-db.js";
import { type IdempotencyRecord, type KeyRecord, toIdempotency, toKey } from "./service-rows.js";
import { recordDeletion } from "./tx-rows.js";

type AuthRecord = KeyRecord & { disabled_user: string | null };

function toKeyForAuth(record: AuthRecord): KeyForAuth {
  return { ...toKey(record), userDisabled: record.disabled_user !== null };
}

/**
 * What the server's tables need of a database. Both drivers take the SQL below as written:
 * placeholders `$1, $2…`, numbered in the order of the parameters and each used once.
 */
export interface ServiceSql {
  readonly kind: ServiceDb["kind"];
  /** Whether this is the store's own connection or pool (see `ServiceDb.sharesStoreTransactions`). */
  readonly shared: boolean;
  all<T>(sql: string, params: readonly unknown[]): Promise<T[]>;
  /** Runs a statement; resolves with the number of rows it changed. */
  run(sql: string, params: readonly unknown[]): Promise<number>;
  /** See `ServiceDb.ready`. */
  ready(): Promise<void>;
  migrate(): Promise<void>;
  close(): Promise<void>;
}

const SQL = {
  insertKey: `INSERT INTO api_keys (id, user_id, name, key_hash, created_at, revoked_at, expires_at, last_used_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
  /**
   * Every request's one lookup, shared by concurrent requests (key-lookups.ts): the keys, and
   * their users' rows in disabled_users if any. On PostgreSQL and on SQLite.
   */
  findKeys: `SELECT k.*, d.user_id AS disabled_user FROM api_keys k
    LEFT JOIN disabled_users d ON d.user_id = k.user_id WHERE k.id = ANY ($1::text[])`,
  findKeysSqlite: `SELECT k.*, d.user_id AS disabled_user FROM api_keys k
    LEFT JOIN disabled_users d ON d.user_id = k.user_id WHERE k.id IN (SELECT value FROM json_each($1))`,
  listKeys: "SELECT * FROM api_keys WHERE user_id = $1 ORDER BY created_at, id",
  revokeKey: "UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND user_id = $3 AND revoked_at IS NULL",
  /**
   * A key, if its user holds fewer than the cap of live keys: the count and the insert are one
   * statement, so concurrent requests cannot all count before any inserts (on SQLite; PostgreSQL
   * statements that start together still see the same count, as before).
   */
  insertKeyUnderCap: `INSERT INTO api_keys (id, user_id, name, key_hash, created_at, revoked_at, expires_at, last_used_at)
    SELECT $1, $2, $3, $4, $5, $6, $7, $8
    WHERE (SELECT COUNT(*) FROM api_keys
      WHERE user_id = $9 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $10)) < $11`,
  touchKey:
    "UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)",
  disableUser: `INSERT INTO disabled_users (user_id, disabled_at, reason) VALUES ($1, $2, $3)
    ON CONFLICT DO NOTHING`,
  enableUser: "DELETE FROM disabled_users WHERE user_id = $1",
  findDisabledUser: `SELECT user_id AS "userId", disabled_at AS "disabledAt", reason FROM disabled_users
    WHERE user_id = $1`,
  listDisabledUsers: `SELECT user_id AS "userId", disabled_at AS "disabledAt", reason FROM disabled_users
    ORDER BY user_id`,
  listDeletions: `SELECT owner, session_id AS "sessionId", action, actor, via, at FROM deletion_audit
                  WHERE owner = $1 ORDER BY seq DESC LIMIT $2`,
  findIdempotent: `SELECT request_hash, created_at, status, body, content_type, etag, session_id
    FROM idempotency_keys WHERE owner = $1 AND key = $2 AND status IS NOT NULL`,
  sweepIdempotent: "DELETE FROM idempotency_keys WHERE created_at < $1",
} as const;

/** The server's tables (see ServiceDb), in the same SQL on SQLite and PostgreSQL. */
export class SqlServiceDb implements ServiceDb {
  readonly kind: ServiceDb["kind"];
  readonly sharesStoreTransactions: boolean;
  readonly sql: TxSql;

  /**
   * Concurrent requests' key lookups share queries. PostgreSQL: the keys asked while a lookup is
   * on its way (a round trip each otherwise). SQLite, which answers at once: the keys asked in one
   * turn of the event loop (a read transaction each otherwise, most of a lookup's cost).
   */
  private readonly keyLookups: KeyLookups<KeyForAuth>;

  constructor(private readonly db: ServiceSql) {
    this.keyLookups =
      db.kind === "postgres"
        ? new KeyLookups(
            async (ids) => (await db.all<AuthRecord>(SQL.findKeys, [ids])).map(toKeyForAuth),
            (row) => row.id,
          )
        : new KeyLookups(
            async (ids) =>
              (await db.all<AuthRecord>(SQL.findKeysSqlite, [JSON.stringify(ids)])).map(toKeyForAuth),
            (row) => row.id,
            nextTurn,
          );
    this.kind = db.kind;
    this.sharesStoreTransactions = db.shared;
    this.sql = {
      dialect: db.kind,
      run: (sql, params) => db.run(sql, params),
      all: (sql, params) => db.all(sql, params),
    };
  }

  ready(): Promise<void> {
    return this.db.ready();
  }

  migrate(): Promise<void> {
    return this.db.migrate();
  }

  close(): Promise<void> {
    return this.db.close();
  }

  async insertKey(row: ApiKeyRow): Promise<void> {
    await this.db.run(SQL.insertKey, keyColumns(row));
  }

  async findKey(id: string): Promise<KeyForAuth | undefined> {
    return this.keyLookups.find(id);
  }

  async listKeys(userId: string): Promise<ApiKeyRow[]> {
    return (await this.db.all<KeyRecord>(SQL.listKeys, [userId])).map(toKey);
  }

  async revokeKey(userId: string, id: string, at: string): Promise<boolean> {
    return (await this.db.run(SQL.revokeKey, [at, id, userId])) > 0;
  }

  async insertKeyUnderCap(row: ApiKeyRow, cap: number, now: string): Promise<boolean> {
    const inserted = await this.db.run(SQL.insertKeyUnderCap, [...keyColumns(row), row.userId, now, cap]);
    return inserted === 1;
  }

  async touchKey(id: string, at: string, since: string): Promise<void> {
    await this.db.run(SQL.touchKey, [at, id, since]);
  }

  async disableUser(row: DisabledUserRow): Promise<boolean> {
    return (await this.db.run(SQL.disableUser, [row.userId, row.disabledAt, row.reason])) > 0;
  }

  async enableUser(userId: string): Promise<boolean> {
    return (await this.db.run(SQL.enableUser, [userId])) > 0;
  }

  async findDisabledUser(userId: string): Promise<DisabledUserRow | undefined> {
    const [row] = await this.db.all<DisabledUserRow>(SQL.findDisabledUser, [userId]);
    return row;
  }

  listDisabledUsers(): Promise<DisabledUserRow[]> {
    return this.db.all<DisabledUserRow>(SQL.listDisabledUsers, []);
  }

  async recordDeletion(row: DeletionRow): Promise<void> {
    await runFlow(recordDeletion(this.sql, row));
  }

  listDeletions(owner: string, limit: number): Promise<DeletionRow[]> {
    return this.db.all<DeletionRow>(SQL.listDeletions, [owner, limit]);
  }

  async findIdempotent(owner: string, key: string): Promise<IdempotencyRow | undefined> {
    const [record] = await this.db.all<IdempotencyRecord>(SQL.findIdempotent, [owner, key]);
    return record && toIdempotency(record);
  }

  sweepIdempotent(cutoff: string): Promise<number> {
    return this.db.run(SQL.sweepIdempotent, [cutoff]);
  }
}

/** An API key's row as `insertKey` lists the columns. */
function keyColumns(row: ApiKeyRow): unknown[] {
  return [
    row.id,
    row.userId,
    row.name,
    row.keyHash,
    row.createdAt,
    row.revokedAt,
    row.expiresAt,
    row.lastUsedAt,
  ];
}
