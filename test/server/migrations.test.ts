import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { createServer, openServiceDb } from "../../src/server/index.js";
import { BACKENDS, type Backend, freshPgDatabase } from "./helpers.js";

/** The server's tables as servers before the shared migration runner created and recorded them. */
const oldSchema = (backend: Backend) => {
  const serial = backend === "sqlite" ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY";
  return [
    "CREATE TABLE sessiontree_server_migrations (version INTEGER PRIMARY KEY)",
    "INSERT INTO sessiontree_server_migrations (version) VALUES (1)",
    `CREATE TABLE api_keys (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, name TEXT NOT NULL,
     key_hash TEXT NOT NULL, created_at TEXT NOT NULL, revoked_at TEXT)`,
    "CREATE INDEX api_keys_user ON api_keys (user_id)",
    `CREATE TABLE deletion_audit (seq ${serial}, owner TEXT NOT NULL, session_id TEXT NOT NULL,
     action TEXT NOT NULL, actor TEXT NOT NULL, via TEXT NOT NULL, at TEXT NOT NULL)`,
    "CREATE INDEX deletion_audit_owner ON deletion_audit (owner, seq)",
    `CREATE TABLE idempotency_keys (owner TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL,
     created_at TEXT NOT NULL, status INTEGER, body TEXT, content_type TEXT, etag TEXT,
     PRIMARY KEY (owner, key))`,
    `INSERT INTO api_keys VALUES ('0123456789ab', 'old', 'kept', 'hash', '2025-01-01T00:00:00.000Z', NULL)`,
  ];
};

interface Target {
  options: { data?: string; database?: string };
  /** Runs SQL straight on the database, as another program would. */
  exec(statements: string[]): Promise<void>;
  query(sql: string): Promise<unknown[]>;
  drop(): Promise<void>;
}

async function target(backend: Backend): Promise<Target> {
  if (backend === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "st-server-migrations-"));
    const file = join(dir, "sessiontree.db");
    const withDb = <T>(work: (db: Database.Database) => T): T => {
      const db = new Database(file);
      try {
        return work(db);
      } finally {
        db.close();
      }
    };
    return {
      options: { data: dir },
      exec: async (statements) =>
        withDb((db) => {
          for (const statement of statements) db.exec(statement);
        }),
      query: async (sql) => withDb((db) => db.prepare(sql).all()),
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const database = await freshPgDatabase();
  const withClient = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  return {
    options: { database: database.url },
    exec: (statements) =>
      withClient(async (client) => {
        for (const statement of statements) await client.query(statement);
      }),
    query: (sql) => withClient(async (client) => (await client.query(sql)).rows),
    drop: () => database.drop(),
  };
}

for (const backend of BACKENDS) {
  describe(`the server's own tables (${backend})`, () => {
    let t: Target;
    before(async () => {
      t = await target(backend);
    });
    after(() => t.drop());

    it("adopts the tables an older server created, keeping their rows", async () => {
      await t.exec(oldSchema(backend));
      const db = await openServiceDb(t.options);
      try {
        const kept = await db.findKey("0123456789ab");
        assert.equal(kept?.userId, "old");
        // Step 3: a key made before expiry existed lives until revoked, as it did.
        assert.equal(kept?.expiresAt, null);
        assert.equal(kept?.lastUsedAt, null);
        assert.deepEqual(await db.listDisabledUsers(), []);
      } finally {
        await db.close();
      }
      const recorded = (await t.query(
        "SELECT version, name FROM sessiontree_server_migrations ORDER BY version",
      )) as Array<{ version: number; name: string }>;
      assert.deepEqual(recorded[0], { version: 1, name: "" }, "step 1 stays recorded, once");
      assert.deepEqual(
        recorded.map((row) => Number(row.version)),
        [1, 2, 3],
        "later steps apply once on top",
      );
    });

    it("refuses to start on tables migrated by a newer server, with a typed error", async () => {
      await t.exec([
        "INSERT INTO sessiontree_server_migrations (version, name, applied_at) VALUES (99, 'future', 'then')",
      ]);
      await assert.rejects(createServer({ ...t.options, port: 0 }), {
        name: "SchemaTooNewError",
        code: "schema_too_new",
        details: { set: "sessiontree server", version: 99 },
      });
      await assert.rejects(openServiceDb(t.options), { code: "schema_too_new" });
    });
  });
}
