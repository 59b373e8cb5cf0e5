import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import {
  type Migration,
  type MigrationSet,
  pendingMigrations,
  runPostgresMigrations,
  runSqliteMigrations,
  SchemaTooNewError,
} from "../../src/store/migrations.js";
import { POSTGRES_MIGRATIONS, PostgresStore } from "../../src/store/postgres/index.js";
import { SQLITE_MIGRATIONS, SqliteStore } from "../../src/store/sqlite/index.js";
import { freshDatabase } from "./pg-database.js";

const dir = mkdtempSync(join(tmpdir(), "sessiontree-migrations-"));
const database = await freshDatabase("migrations");
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await database.drop();
});

it("plans the missing steps in order and refuses a database newer than the code", () => {
  const steps = [
    { version: 2, name: "b", statements: [] },
    { version: 1, name: "a", statements: [] },
  ];
  assert.deepEqual(
    pendingMigrations(steps, new Set([1])).map((m) => m.version),
    [2],
  );
  assert.deepEqual(
    pendingMigrations(steps, new Set()).map((m) => m.version),
    [1, 2],
  );
  assert.throws(() => pendingMigrations(steps, new Set([1, 2, 3])), /schema version 3/);
});

describe("sqlite migrations", () => {
  it("apply once, however many stores open the file, and record each version", async () => {
    const path = join(dir, "m.db");
    const stores = [new SqliteStore({ path }), new SqliteStore({ path })];
    for (const store of stores) await store.init();
    await stores[0]?.createSession("o", { id: "kept" });
    for (const store of stores) await store.close();
    const reopened = new SqliteStore({ path });
    await reopened.init();
    assert.equal((await reopened.getSummary("o", "kept")).id, "kept");
    await reopened.close();
    const db = new Database(path);
    const rows = db.prepare("SELECT version, name FROM sessiontree_migrations ORDER BY version").all();
    db.close();
    assert.deepEqual(
      rows,
      SQLITE_MIGRATIONS.map(({ version, name }) => ({ version, name })),
    );
  });

  it("accepts an open better-sqlite3 database and leaves it open", async () => {
    const db = new Database(join(dir, "given.db"));
    const store = new SqliteStore({ database: db });
    await store.init();
    await store.createSession("o");
    await store.close();
    assert.equal(db.open, true);
    db.close();
  });
});

describe("postgres migrations", () => {
  it("apply once when several stores initialise at the same time", async () => {
    const stores = Array.from({ length: 4 }, () => new PostgresStore({ connectionString: database.url }));
    await Promise.all(stores.map((store) => store.init()));
    for (const store of stores) await store.close();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        "SELECT version, name FROM sessiontree_migrations ORDER BY version",
      );
      assert.deepEqual(
        rows,
        POSTGRES_MIGRATIONS.map(({ version, name }) => ({ version, name })),
      );
    } finally {
      await client.end();
    }
  });

  it("accepts a pool factory and leaves the pool to its owner", async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    const store = new PostgresStore({ pool: () => pool });
    await store.init();
    const { id } = await store.createSession("o");
    await store.close();
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM sessions WHERE id = $1", [id]);
    assert.equal(rows[0]?.n, 1);
    await pool.end();
  });
});

describe("the migration runner, for tables of another set", () => {
  const v1 = { version: 1, name: "notes", statements: ["CREATE TABLE notes (id text PRIMARY KEY)"] };
  const v2 = { version: 2, name: "note text", statements: ["ALTER TABLE notes ADD COLUMN body text"] };
  const set = (migrations: Migration[]): MigrationSet => ({
    name: "test notes",
    table: "test_notes_migrations",
    migrations,
  });

  it("applies a set on SQLite once, step by step, beside the store's, and refuses a newer one", async () => {
    const db = new Database(join(dir, "runner.db"));
    const store = new SqliteStore({ database: db });
    await store.init();
    assert.deepEqual(runSqliteMigrations(db, set([v1])), [1]);
    assert.deepEqual(runSqliteMigrations(db, set([v1])), []);
    assert.deepEqual(runSqliteMigrations(db, set([v1, v2])), [2]);
    db.prepare("INSERT INTO notes (id, body) VALUES (?, ?)").run("n", "kept");
    const error = catchError(() => runSqliteMigrations(db, set([v1])));
    assert.ok(error instanceof SchemaTooNewError);
    assert.equal(error.code, "schema_too_new");
    assert.deepEqual(error.details, { set: "test notes", version: 2 });
    assert.throws(() => runSqliteMigrations(db, { ...set([v1]), table: "bad name; --" }), /plain table name/);
    // The store's own record is untouched by another set's steps.
    const own = db.prepare("SELECT version FROM sessiontree_migrations").all();
    assert.equal(own.length, SQLITE_MIGRATIONS.length);
    await store.close();
    db.close();
  });

  it("applies a set on PostgreSQL once when several pools run it at the same time", async () => {
    const pools = Array.from({ length: 3 }, () => new pg.Pool({ connectionString: database.url, max: 1 }));
    const [first] = pools as [pg.Pool];
    try {
      const applied = await Promise.all(pools.map((pool) => runPostgresMigrations(pool, set([v1, v2]))));
      assert.deepEqual(applied.flat(), [1, 2]);
      const { rows } = await first.query("SELECT version, name FROM test_notes_migrations ORDER BY version");
      assert.deepEqual(rows, [
        { version: 1, name: "notes" },
        { version: 2, name: "note text" },
      ]);
      await assert.rejects(runPostgresMigrations(first, set([v1])), { code: "schema_too_new" });
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });
});

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}
