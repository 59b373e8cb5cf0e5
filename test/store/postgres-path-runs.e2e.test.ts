import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import type { SessionEntry } from "../../src/core/entry.js";
import type { SearchHit } from "../../src/core/search-hit.js";
import { MemoryStore } from "../../src/store/memory/memory-store.js";
import { PostgresStore } from "../../src/store/postgres/index.js";
import { PATH_RUNS_MIGRATION } from "../../src/store/postgres/path-runs-migration.js";
import { SQL } from "../../src/store/postgres/sql.js";
import type { SessionStore } from "../../src/store/store.js";
import { Random } from "../support/random.js";
import { chain, make, newOwner } from "./conformance/helpers.js";
import { freshDatabase } from "./pg-database.js";

// Top-level await: without SESSIONTREE_TEST_PG_URL the file fails to load, so it fails, never skips.
const database = await freshDatabase("path-runs");
// A chunk of 3 rows per INSERT, so a batch's runs cross statements.
const store = new PostgresStore({ connectionString: database.url, insertChunk: 3 });
const client = new pg.Client({ connectionString: database.url });
before(async () => {
  await store.init();
  await client.connect();
});
after(async () => {
  await client.end();
  await store.close();
  await database.drop();
});

/**
 * A batch: mostly a chain under the leaf, sometimes under an older entry, sometimes with an entry
 * in it that branches off an earlier one of the same batch (a run starting mid-batch).
 */
function nextBatch(rand: () => number, known: string[], leaf: string | null, serial: number): SessionEntry[] {
  const under = known.length > 0 && rand() < 0.25 ? known[Math.floor(rand() * known.length)] : leaf;
  const batch: SessionEntry[] = [];
  const size = 1 + Math.floor(rand() * 5);
  for (let i = 0; i < size; i++) {
    const id = `b${serial}-${i}`;
    const inBatch = batch.map((e) => e.id);
    const branchesInside = i > 1 && rand() < 0.2;
    const parent = branchesInside
      ? (inBatch[Math.floor(rand() * (inBatch.length - 1))] ?? null)
      : (inBatch.at(-1) ?? under ?? null);
    batch.push(i % 2 === 0 ? make.user(id, parent) : make.assistant(id, parent));
  }
  return batch;
}

/** The same random history written to `stores`; writes to `sessions` run concurrently (group commit). */
async function grow(
  stores: SessionStore[],
  owner: string,
  sessions: string[],
  seed: number,
): Promise<string[][]> {
  const seeded = new Random(seed);
  const rand = () => seeded.next();
  const known = sessions.map(() => [] as string[]);
  const leaves: Array<string | null> = sessions.map(() => null);
  for (let round = 0; round < 40; round++) {
    const batches = sessions.map((_, s) => nextBatch(rand, known[s] ?? [], leaves[s] ?? null, round));
    for (const target of stores) {
      await Promise.all(sessions.map((id, s) => target.appendEntries(owner, id, batches[s] ?? [])));
    }
    batches.forEach((batch, s) => {
      known[s]?.push(...batch.map((e) => e.id));
      leaves[s] = batch.at(-1)?.id ?? null;
    });
  }
  return known;
}

async function sameReads(
  reference: SessionStore,
  owner: string,
  sessionId: string,
  ids: string[],
  seed: number,
) {
  const seeded = new Random(seed);
  const rand = () => seeded.next();
  const pick = () => ids[Math.floor(rand() * ids.length)] as string;
  for (let i = 0; i < 40; i++) {
    const leaf = pick();
    const expected = await reference.readBranch(owner, sessionId, leaf);
    assert.deepEqual(await store.readBranch(owner, sessionId, leaf), expected, `path to ${leaf}`);
    const onPath = expected[Math.floor(rand() * expected.length)]?.id as string;
    for (const knownId of [onPath, pick(), "no-such-entry"]) {
      const want = await reference.readBranchSince(owner, sessionId, knownId, leaf);
      const got = await store.readBranchSince(owner, sessionId, knownId, leaf);
      assert.deepEqual(got, want, `path to ${leaf} after ${knownId}`);
    }
  }
}

/** Every search hit's branch state (on its session leaf's path, or abandoned) as the memory store gives it. */
async function sameBranchStates(reference: SessionStore, owner: string, rounds: number) {
  const states = (hits: SearchHit[]) => hits.map((h) => `${h.sessionId}/${h.entryId}: ${h.branch}`).sort();
  // Each entry's text is its id, `b<round>-<i>`: a round's entries in every session, wherever they
  // lie. A search word has at least 3 characters: rounds 10 on.
  for (let round = 10; round < rounds; round++) {
    const query = `b${round}`;
    const want = states(await reference.search(owner, query, { limit: 200 }));
    assert.ok(want.length > 0, query);
    assert.deepEqual(states(await store.search(owner, query, { limit: 200 })), want, query);
  }
}

async function pkOf(owner: string, sessionId: string): Promise<string> {
  const { rows } = await client.query("SELECT pk FROM sessions WHERE owner = $1 AND id = $2", [
    owner,
    sessionId,
  ]);
  return String(rows[0]?.pk);
}

/** Every row's run start holds: rows run_start … seq chain each to the one stored before it. */
async function checkRuns(pk: string): Promise<number[]> {
  const { rows } = await client.query(
    "SELECT seq, id, parent_id, run_start FROM entries WHERE session_pk = $1 ORDER BY seq",
    [pk],
  );
  const bySeq = new Map(rows.map((r) => [r.seq as number, r]));
  for (const row of rows) {
    assert.ok(row.run_start !== null && row.run_start <= row.seq, `run start of ${row.id}`);
    for (let seq = row.seq as number; seq > row.run_start; seq--) {
      assert.equal(bySeq.get(seq)?.parent_id, bySeq.get(seq - 1)?.id, `run of ${row.id} at seq ${seq}`);
    }
  }
  return rows.map((r) => r.run_start as number);
}

interface PlanNode {
  "Node Type": string;
  "Actual Rows"?: number;
  Plans?: PlanNode[];
}

/** A plan node and all below it. */
function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

describe("PostgreSQL path runs: a branch read a run at a time", () => {
  it("reads every path of random trees as the memory store does, written alone and in group commits", async () => {
    const reference = new MemoryStore();
    await reference.init();
    const owner = newOwner();
    const sessions: string[] = [];
    for (let s = 0; s < 3; s++) {
      const { id } = await store.createSession(owner);
      await reference.createSession(owner, { id });
      sessions.push(id);
    }
    const ids = await grow([store, reference], owner, sessions, 7);
    for (const [s, sessionId] of sessions.entries()) {
      await sameReads(reference, owner, sessionId, ids[s] ?? [], 100 + s);
      await checkRuns(await pkOf(owner, sessionId));
    }
    await sameBranchStates(reference, owner, 40);
  });

  it("a conversation appended a turn at a time under its leaf is one run", async () => {
    const owner = newOwner();
    const { id } = await store.createSession(owner);
    const turns = chain("turn", 40);
    for (let i = 0; i < turns.length; i += 2) await store.appendEntries(owner, id, turns.slice(i, i + 2));
    const starts = await checkRuns(await pkOf(owner, id));
    assert.deepEqual(new Set(starts), new Set([1]));
    // Concurrent writes to other sessions put these appends in group commits.
    const { id: other } = await store.createSession(owner);
    const more = chain("more", 20, "turn-39");
    const others = chain("other", 20);
    for (let i = 0; i < more.length; i += 2) {
      await Promise.all([
        store.appendEntries(owner, id, more.slice(i, i + 2)),
        store.appendEntries(owner, other, others.slice(i, i + 2)),
      ]);
    }
    assert.deepEqual(new Set(await checkRuns(await pkOf(owner, id))), new Set([1]));
    assert.deepEqual(new Set(await checkRuns(await pkOf(owner, other))), new Set([1]));
    assert.deepEqual(
      (await store.readBranch(owner, id)).map((e) => e.id),
      [...turns, ...more].map((e) => e.id),
    );
  });

  it("rows without a run start (stored before the column) read correctly; the migration fills them as writes do", async () => {
    const reference = new MemoryStore();
    await reference.init();
    const owner = newOwner();
    const { id } = await store.createSession(owner);
    await reference.createSession(owner, { id });
    const [ids = []] = await grow([store, reference], owner, [id], 11);
    const pk = await pkOf(owner, id);
    const written = await checkRuns(pk);
    assert.ok(new Set(written).size > 1, "the random tree has several runs");
    await client.query("UPDATE entries SET run_start = NULL WHERE session_pk = $1", [pk]);
    await sameReads(reference, owner, id, ids, 12);
    await sameBranchStates(reference, owner, 40);
    await client.query(PATH_RUNS_MIGRATION.statements[1] as string);
    assert.deepEqual(await checkRuns(pk), written);
    await sameReads(reference, owner, id, ids, 13);
  });

  it("the walk steps once per run: a 2,000-entry path is one range scan", async () => {
    const owner = newOwner();
    const { id } = await store.createSession(owner);
    await store.appendEntries(owner, id, chain("deep", 2000));
    const pk = await pkOf(owner, id);
    const explained = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${SQL.branch}`, [pk, "deep-1999"]);
    const [{ Plan: plan }] = (explained.rows[0] as Record<string, unknown>)["QUERY PLAN"] as [
      { Plan: PlanNode },
    ];
    assert.ok(!nodes(plan).some((n) => n["Node Type"] === "Seq Scan"), "a sequential scan");
    const union = nodes(plan).find((n) => n["Node Type"] === "Recursive Union");
    assert.equal(union?.["Actual Rows"], 1, "one run, so one row out of the walk");
    assert.equal((await store.readBranch(owner, id)).length, 2000);
  });
});
