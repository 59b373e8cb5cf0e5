import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import pg from "pg";
import type { SessionEntry } from "../../src/core/entry.js";
import type { PgPool } from "../../src/store/postgres/connection.js";
import { PostgresStore } from "../../src/store/postgres/index.js";
import { searchPostgres } from "../../src/store/postgres/postgres-search.js";
import { nextSpan, WINDOW_STEPS, type WindowSteps } from "../../src/store/postgres/postgres-search-window.js";
import { parseSearch, SEARCH_LIMIT, SEARCH_WINDOW } from "../../src/store/search/search-query.js";
import { make } from "./conformance/helpers.js";
import { freshDatabase } from "./pg-database.js";

const database = await freshDatabase("search_window");
const store = new PostgresStore({ connectionString: database.url });
const pool = new pg.Pool({ connectionString: database.url, max: 2 }) as unknown as PgPool;
const OWNER = "owner-w";
const ROUNDS = 16;
const PER_ROUND = 250;
const SESSIONS = 4;

/** Every second entry says `alpha`, some of them several times (so ranks differ); every 97th says `rarebird`. */
function text(n: number): string {
  const alpha = n % 2 === 0 ? ` alpha${" alpha".repeat(n % 7)}` : "";
  const rare = n % 97 === 0 ? " rarebird" : "";
  return `entry ${n} of the corpus${alpha}${rare}`;
}

/**
 * 4,000 entries of the owner in 4 sessions written in turns of 250 (so the newest matches come from
 * several sessions), and another owner's matching entries between them (not the owner's matches).
 */
before(async () => {
  await store.init();
  const ids: string[] = [];
  for (let s = 0; s < SESSIONS; s++) ids.push((await store.createSession(OWNER)).id);
  const stranger = (await store.createSession("owner-x")).id;
  const last: Array<string | null> = ids.map(() => null);
  let n = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const session = round % SESSIONS;
    const entries: SessionEntry[] = [];
    for (let i = 0; i < PER_ROUND; i++, n++) {
      entries.push(make.user(`e${n}`, last[session] ?? null, text(n)));
      last[session] = `e${n}`;
    }
    await store.appendEntries(OWNER, ids[session] ?? "", entries);
    const strangerParent = round === 0 ? null : `x${round - 1}`;
    await store.appendEntries("owner-x", stranger, [
      make.user(`x${round}`, strangerParent, "alpha alpha alpha"),
    ]);
  }
});

after(async () => {
  await pool.end();
  await store.close();
  await database.drop();
});

/** The search in windows starting at `firstSpan` rows, and the floors of its steps. */
async function windowed(query: string, firstSpan: number) {
  const floors: Array<string | null> = [];
  const steps: WindowSteps = { ...WINDOW_STEPS, firstSpan, onStep: (floor) => floors.push(floor) };
  const hits = await searchPostgres(pool, parseSearch(OWNER, query, { limit: SEARCH_LIMIT.max }), steps);
  return { hits, floors };
}

it("answers from a window of the newest rows what one statement over the whole table answers", async () => {
  const whole = await windowed("alpha", Number.MAX_SAFE_INTEGER);
  assert.deepEqual(whole.floors, [null]);
  assert.equal(whole.hits.length, SEARCH_LIMIT.max);
  const inWindows = await windowed("alpha", 200);
  // Three windows (200, 1,600 and about 2,500 rows), the last not the whole table.
  assert.ok(inWindows.floors.length >= 3, `steps: ${inWindows.floors.join(", ")}`);
  assert.ok(inWindows.floors.every((floor) => floor !== null));
  assert.deepEqual(inWindows.hits, whole.hits);
  // The window is the owner's newest 1,000 matches: entries 2,000 to 3,999 (every second one).
  const numbers = inWindows.hits.map((hit) => Number(hit.entryId.slice(1)));
  assert.ok(Math.min(...numbers) >= 4000 - 2 * SEARCH_WINDOW, `oldest hit e${Math.min(...numbers)}`);
  assert.ok(new Set(inWindows.hits.map((hit) => hit.sessionId)).size === SESSIONS);
  assert.ok(inWindows.hits.every((hit) => hit.branch === "path"));
});

it("reads the whole table for a rare term, with the same answer", async () => {
  const whole = await windowed("rarebird", Number.MAX_SAFE_INTEGER);
  const inWindows = await windowed("rarebird", 200);
  assert.equal(inWindows.floors.at(-1), null);
  assert.equal(whole.hits.length, Math.ceil(4000 / 97));
  assert.deepEqual(inWindows.hits, whole.hits);
  assert.deepEqual(await store.search(OWNER, "rarebird", { limit: SEARCH_LIMIT.max }), whole.hits);
});

it("grows a window by the density of matches, jumping to the whole table when it is too low", () => {
  const steps = { ...WINDOW_STEPS };
  assert.equal(nextSpan(steps, 1000, 0, 1000, 1_000_000), 1_000_000);
  assert.equal(nextSpan(steps, 1000, 1, 1000, 1_000_000), 1_000_000);
  assert.equal(nextSpan(steps, 1000, 100, 1000, 1_000_000), 8000);
  assert.equal(nextSpan(steps, 1000, 500, 1000, 1_000_000), 2500);
  assert.equal(nextSpan(steps, 1000, 999, 1000, 1_000_000), 1500);
});
