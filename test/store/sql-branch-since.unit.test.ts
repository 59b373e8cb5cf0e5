import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { PostgresStore } from "../../src/store/postgres/index.js";
import { SQL as PG_SQL } from "../../src/store/postgres/sql.js";
import { seqOrdered } from "../../src/store/sql/rows.js";
import { SqliteStore } from "../../src/store/sqlite/index.js";
import { SQL as SQLITE_SQL } from "../../src/store/sqlite/sql.js";
import { chain } from "./conformance/helpers.js";
import { freshDatabase } from "./pg-database.js";

// Top-level await: without SESSIONTREE_TEST_PG_URL the file fails to load, so it fails, never skips.
const database = await freshDatabase("branch-since");
const dir = mkdtempSync(join(tmpdir(), "sessiontree-since-"));
after(async () => {
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** What the statements must do for a turn to cost O(new): the walk stops at the known entry. */
describe("the SQL stores' walk from the leaf stops at the known entry", () => {
  it("SQLite: 2 new entries of a 2,000-entry path are 3 rows (the known one without its payload)", async () => {
    const path = join(dir, "since.db");
    const store = new SqliteStore({ path });
    await store.init();
    const { id } = await store.createSession("o");
    await store.appendEntries("o", id, chain("deep", 2000));
    await store.close();
    const db = new Database(path, { readonly: true });
    try {
      const { pk } = db.prepare("SELECT pk FROM sessions WHERE owner = 'o' AND id = ?").get(id) as {
        pk: number;
      };
      const rows = db
        .prepare(SQLITE_SQL.branchSince)
        .all({ session: pk, leaf: "deep-1999", known: "deep-1997" }) as Array<{
        id: string;
        payload: unknown;
      }>;
      assert.deepEqual(
        rows.map((row) => [row.id, row.payload === null]),
        [
          ["deep-1997", true],
          ["deep-1998", false],
          ["deep-1999", false],
        ],
      );
      const whole = db
        .prepare(SQLITE_SQL.branchSince)
        .all({ session: pk, leaf: "deep-1999", known: "elsewhere" });
      assert.equal(whole.length, 2000);
    } finally {
      db.close();
    }
  });

  it("PostgreSQL: the same, through the unique entry index only", async () => {
    const store = new PostgresStore({ connectionString: database.url });
    await store.init();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { id } = await store.createSession("o");
      await store.appendEntries("o", id, chain("deep", 2000));
      const pk = String(
        (await client.query("SELECT pk FROM sessions WHERE owner = 'o' AND id = $1", [id])).rows[0]?.pk,
      );
      const { rows } = await client.query(PG_SQL.branchSince, [pk, "deep-1999", "deep-1997"]);
      assert.deepEqual(
        rows.map((row) => [row.id, row.payload === null]),
        [
          ["deep-1997", true],
          ["deep-1998", false],
          ["deep-1999", false],
        ],
      );
      const explained = await client.query(`EXPLAIN (FORMAT JSON) ${PG_SQL.branchSince}`, [
        pk,
        "deep-1999",
        "deep-1997",
      ]);
      const plan = JSON.stringify(explained.rows[0]?.["QUERY PLAN"]);
      assert.ok(plan.includes('"Index Name":"entries_entry_key"'), plan);
      assert.ok(!plan.includes('"Node Type":"Seq Scan"'), `a sequential scan in ${plan}`);
      const whole = await client.query(PG_SQL.branchSince, [pk, "deep-1999", "elsewhere"]);
      assert.equal(whole.rows.length, 2000);
    } finally {
      await client.end();
      await store.close();
    }
  });
});

describe("seqOrdered: a path's rows root first (storage order), whatever order the database gave them", () => {
  const rows = (seqs: number[]) => seqs.map((seq) => ({ seq, payload: `s${seq}` }));
  it("rows already in seq order are kept as they are", () => {
    const given = rows([1, 2, 5, 9]);
    assert.equal(seqOrdered(given), given);
    assert.deepEqual(
      given.map((r) => r.seq),
      [1, 2, 5, 9],
    );
  });
  it("any other order is sorted by seq, the root (stored first) first", () => {
    assert.deepEqual(
      seqOrdered(rows([5, 1, 9, 2])).map((r) => r.payload),
      ["s1", "s2", "s5", "s9"],
    );
  });
  it("PostgreSQL's walk of a 2,000-entry path reads root first", async () => {
    const store = new PostgresStore({ connectionString: database.url });
    await store.init();
    try {
      const { id } = await store.createSession("o");
      const path = chain("order", 2000);
      await store.appendEntries("o", id, path);
      const read = await store.readBranch("o", id);
      assert.deepEqual(
        read.map((e) => e.id),
        path.map((e) => e.id),
      );
    } finally {
      await store.close();
    }
  });
});
