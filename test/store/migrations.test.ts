import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { pendingMigrations } from "../../src/store/migrations.js";
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
