import assert from "node:assert/strict";
import { after, it } from "node:test";
import pg from "pg";
import { PostgresStore } from "../../src/store/postgres/index.js";
import { SQL } from "../../src/store/postgres/sql.js";
import { chain } from "./conformance/helpers.js";
import { freshDatabase } from "./pg-database.js";

const database = await freshDatabase("plans");
after(() => database.drop());

/** Every relation scan in a plan, as "<index or Seq Scan> on <table>". */
function scans(plan: Record<string, unknown>): string[] {
  const own = plan["Relation Name"]
    ? [`${plan["Index Name"] ?? plan["Node Type"]} on ${plan["Relation Name"]}`]
    : [];
  const children = (plan.Plans as Record<string, unknown>[] | undefined) ?? [];
  return [...own, ...children.flatMap(scans)];
}

/** The index conditions of every scan of one index in a plan. */
function indexConds(plan: Record<string, unknown>, index: string): string[] {
  const own = plan["Index Name"] === index ? [String(plan["Index Cond"])] : [];
  const children = (plan.Plans as Record<string, unknown>[] | undefined) ?? [];
  return [...own, ...children.flatMap((child) => indexConds(child, index))];
}

it("reads a branch of a session newer than the statistics through the unique entry index only", async () => {
  const store = new PostgresStore({ connectionString: database.url });
  await store.init();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    for (let i = 0; i < 2; i++) {
      const { id } = await store.createSession("o");
      await store.appendEntries("o", id, chain(`old${i}`, 2000));
    }
    await client.query("ANALYZE");
    // Created after ANALYZE: the statistics do not know this session.
    const { id } = await store.createSession("o");
    await store.appendEntries("o", id, chain("new", 2000));
    const pk = (await client.query("SELECT pk FROM sessions WHERE owner = 'o' AND id = $1", [id])).rows[0]
      ?.pk;
    const explained = await client.query(`EXPLAIN (FORMAT JSON) ${SQL.branch}`, [String(pk), "new-1999"]);
    const planRows = explained.rows[0]?.["QUERY PLAN"] as
      | Array<{ Plan: Record<string, unknown> }>
      | undefined;
    const plan = planRows?.[0]?.Plan ?? {};
    const entryScans = scans(plan).filter((scan) => scan.endsWith(" on entries"));
    assert.ok(entryScans.length >= 2, `no entries scans found in ${JSON.stringify(plan)}`);
    // Ids through the unique entry index; runs (path-runs.ts) through the primary key, by seq.
    assert.deepEqual(
      new Set(entryScans),
      new Set(["entries_entry_key on entries", "entries_pkey on entries"]),
    );
    for (const cond of indexConds(plan, "entries_pkey")) assert.match(cond, /\(seq [=>]/, cond);
    assert.equal((await store.readBranch("o", id)).length, 2000);
  } finally {
    await client.end();
    await store.close();
  }
});
