import type { Migration, MigrationSet } from "../../store/migrations.js";

/** Where the server records its own schema versions, apart from the store's. */
export const SERVICE_MIGRATIONS_TABLE = "sessiontree_server_migrations";

export type ServiceDialect = "sqlite" | "postgres";

/** The one column the two databases spell differently: an auto-numbered key (audit order). */
const SERIAL_KEY: Record<ServiceDialect, string> = {
  sqlite: "INTEGER PRIMARY KEY AUTOINCREMENT",
  postgres: "BIGSERIAL PRIMARY KEY",
};

/**
 * The server's tables, step by step, in the store's migration format. Version 1 keeps its
 * `IF NOT EXISTS`: it was released that way and databases created before the steps were
 * recorded by name hold its tables already.
 */
function serviceMigrations(dialect: ServiceDialect): readonly Migration[] {
  return [
    {
      version: 1,
      name: "api keys, deletion audit, idempotency keys",
      statements: [
        `CREATE TABLE IF NOT EXISTS api_keys (
          id TEXT PRIMARY KEY, user_id TEXT NOT NULL, name TEXT NOT NULL, key_hash TEXT NOT NULL,
          created_at TEXT NOT NULL, revoked_at TEXT)`,
        "CREATE INDEX IF NOT EXISTS api_keys_user ON api_keys (user_id)",
        `CREATE TABLE IF NOT EXISTS deletion_audit (
          seq ${SERIAL_KEY[dialect]}, owner TEXT NOT NULL, session_id TEXT NOT NULL,
          action TEXT NOT NULL, actor TEXT NOT NULL, via TEXT NOT NULL, at TEXT NOT NULL)`,
        "CREATE INDEX IF NOT EXISTS deletion_audit_owner ON deletion_audit (owner, seq)",
        `CREATE TABLE IF NOT EXISTS idempotency_keys (
          owner TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL, created_at TEXT NOT NULL,
          status INTEGER, body TEXT, content_type TEXT, etag TEXT, PRIMARY KEY (owner, key))`,
      ],
    },
    {
      version: 2,
      name: "stored responses name their session; claims commit with their write",
      statements: [
        // A purge removes the responses that tell about its session (name, cwd, first message).
        "ALTER TABLE idempotency_keys ADD COLUMN session_id TEXT",
        "CREATE INDEX idempotency_keys_session ON idempotency_keys (owner, session_id)",
        // Rows are now written with their response, in the write's transaction: a claim left
        // pending by an older server never completes.
        "DELETE FROM idempotency_keys WHERE status IS NULL",
      ],
    },
    {
      version: 3,
      name: "key expiry and last use; disabled users",
      statements: [
        // NULL: a key made before expiry existed, or by an operator without --expires; it lives
        // until revoked, as it did.
        "ALTER TABLE api_keys ADD COLUMN expires_at TEXT",
        "ALTER TABLE api_keys ADD COLUMN last_used_at TEXT",
        // A user refused on every request, whatever the credential (a JWT cannot be revoked).
        `CREATE TABLE disabled_users (
          user_id TEXT PRIMARY KEY, disabled_at TEXT NOT NULL, reason TEXT NOT NULL)`,
      ],
    },
  ];
}

/** The server's tables as a set for the store's migration runner. */
export function serviceMigrationSet(dialect: ServiceDialect): MigrationSet {
  return {
    name: "sessiontree server",
    table: SERVICE_MIGRATIONS_TABLE,
    migrations: serviceMigrations(dialect),
    // The lock servers took before this set moved to the shared runner: an old and a new instance
    // starting together still take turns.
    lockKey: 0x5e55_1037,
  };
}
