import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { PostgresStore } from "../../src/store/postgres/index.js";
import { SqliteStore } from "../../src/store/sqlite/index.js";
import type { SessionStore } from "../../src/store/store.js";
import { make } from "./conformance/helpers.js";
import { freshDatabase } from "./pg-database.js";

/** Two sessions, one with a fork, written by the store as it is now. */
async function fill(store: SessionStore): Promise<string> {
  const { id } = await store.createSession("owner-m");
  await store.appendEntries("owner-m", id, [
    make.user("m1", null, "legacy question about readBranch"),
    make.assistant("m2", "m1", "legacy answer one"),
  ]);
  await store.appendEntries("owner-m", id, [make.assistant("m3", "m1", "legacy answer two")]);
  const other = await store.createSession("owner-n");
  await store.appendEntries("owner-n", other.id, [make.user("n1", null, "legacy words of someone else")]);
  return id;
}

/** What a migrated store must find: the old entries, with their branch state, for their owner only. */
async function assertIndexed(store: SessionStore, id: string): Promise<void> {
  const hits = await store.search("owner-m", "legacy");
  assert.deepEqual(
    Object.fromEntries(hits.map((hit) => [hit.entryId, `${hit.sessionId === id}:${hit.branch}`])),
    { m1: "true:path", m2: "true:abandoned", m3: "true:path" },
  );
  assert.deepEqual(
    (await store.search("owner-m", "Branch")).map((hit) => hit.entryId),
    ["m1"],
  );
  // New writes after the migration are indexed as usual, once.
  await store.appendEntries("owner-m", id, [make.user("m4", "m3", "legacy follow-up")]);
  assert.equal((await store.search("owner-m", "legacy")).length, 4);
}

describe("search index migration (schema step 3)", () => {
  it("SQLite: a database at step 2 gets the index, its entries indexed, on open", async () => {
    const dir = mkdtempSync(join(tmpdir(), "st-search-mig-"));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, "s.db");
    const first = new SqliteStore({ path });
    await first.init();
    const id = await fill(first);
    await first.close();
    // Back to step 2: the search tables gone, the step not recorded.
    const db = new Database(path);
    db.exec(`DROP TABLE search_fts; DROP TABLE search_rows; DROP TABLE search_backlog;
      DELETE FROM sessiontree_migrations WHERE version = 3`);
    assert.deepEqual(db.prepare("SELECT max(version) AS v FROM sessiontree_migrations").get(), { v: 2 });
    db.close();
    const reopened = new SqliteStore({ path });
    await reopened.init();
    await assertIndexed(reopened, id);
    await reopened.close();
  });

  it("PostgreSQL: a database at step 2 gets the index, its entries indexed, on open", async () => {
    const database = await freshDatabase("search_mig");
    after(() => database.drop());
    const first = new PostgresStore({ connectionString: database.url });
    await first.init();
    const id = await fill(first);
    await first.close();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(`DROP TABLE search_entries; DROP TABLE search_backlog;
      DELETE FROM sessiontree_migrations WHERE version = 3`);
    await client.end();
    const reopened = new PostgresStore({ connectionString: database.url });
    await reopened.init();
    await assertIndexed(reopened, id);
    await reopened.close();
  });

  it("PostgreSQL: a phrase matches its words in a row, whole or as identifier pieces", async () => {
    const database = await freshDatabase("search_phrase");
    after(() => database.drop());
    const store = new PostgresStore({ connectionString: database.url });
    await store.init();
    const { id } = await store.createSession("o");
    await store.appendEntries("o", id, [
      make.user("p1", null, "throw new error here"),
      make.user("p2", "p1", "throw new value, then a new error"),
      make.user("p3", "p2", "we call readBranchFlow here"),
    ]);
    const found = async (query: string) => (await store.search("o", query)).map((hit) => hit.entryId).sort();
    assert.deepEqual(await found('"throw new error"'), ["p1"]);
    assert.deepEqual(await found('"new error"'), ["p1", "p2"]);
    assert.deepEqual(await found('"error new"'), []);
    assert.deepEqual(await found("BranchFlow"), ["p3"]);
    assert.deepEqual(await found('"call readBranch"'), ["p3"]);
    assert.deepEqual(await found('"readBranch here"'), []);
    assert.deepEqual(await found('"call read"'), ["p3"]);
    await store.close();
  });

  it("PostgreSQL: a role that may not create extensions finds words and identifier pieces", async () => {
    const database = await freshDatabase("search_plain");
    const role = `st_plain_${randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    after(async () => {
      await admin.end();
      await database.drop();
      const base = new pg.Client({ connectionString: process.env.SESSIONTREE_TEST_PG_URL });
      await base.connect();
      await base.query(`DROP ROLE IF EXISTS ${role}`);
      await base.end();
    });
    // A role that may create tables in public but not extensions (no CREATE on the database).
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await admin.query(`GRANT CREATE, USAGE ON SCHEMA public TO ${role}`);
    const url = new URL(database.url);
    url.username = role;
    const warnings: Array<{ code?: string }> = [];
    const onWarning = (warning: Error & { code?: string }) => warnings.push(warning);
    process.on("warning", onWarning);
    const store = new PostgresStore({ connectionString: url.toString() });
    await store.init();
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    process.off("warning", onWarning);
    assert.deepEqual(warnings, []);
    const { id } = await store.createSession("o");
    await store.appendEntries("o", id, [make.user("w1", null, "calls readBranch twice")]);
    for (const query of ["readbranch", "Branch", "read"]) {
      assert.deepEqual(
        (await store.search("o", query)).map((hit) => hit.entryId),
        ["w1"],
        query,
      );
    }
    const { rows } = await admin.query(
      "SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'pg_trgm'",
    );
    assert.equal(rows[0]?.n, 0);
    await store.close();
  });
});
