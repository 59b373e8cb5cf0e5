/**
 * An agent's turn on each store (issue 14.5): the read of a 2,000-entry leaf path, whole
 * (`readBranch`) and as what is new since the last turn (`readBranchSince`), and a conversation
 * of 1,000 turns (a user and an assistant message appended, then what is new read back) whose
 * turns must cost the same at the end as at the start.
 */
import { join } from "node:path";
import { JsonlStore } from "../src/store/jsonl/jsonl-store.js";
import { MemoryStore } from "../src/store/memory/memory-store.js";
import { PostgresStore } from "../src/store/postgres/index.js";
import { SqliteStore } from "../src/store/sqlite/index.js";
import type { SessionStore } from "../src/store/store.js";
import type { Goal } from "./goals.js";
import { median } from "./stats.js";
import { chain, entry } from "./store-entries.js";

export const TURN_PATH = 2000;
export const TURN_NEW = 2;
const TURNS = 1000;
/** Whole-path read targets, ms (issue 14.5); JSONL has none. */
const PATH_TARGET: Record<string, number | undefined> = { memory: 2, sqlite: 10, postgres: 10 };

export interface TurnRow {
  backend: string;
  wholeMs: number;
  sinceMs: number;
  /** Median turn (2 appends + the read of what is new) over the first and the last 100 turns. */
  firstTurnsMs: number;
  lastTurnsMs: number;
}

async function pathReads(
  name: string,
  store: SessionStore,
  reads: number,
): Promise<Omit<TurnRow, "firstTurnsMs" | "lastTurnsMs">> {
  const owner = `bench-path-${Date.now()}`;
  const { id } = await store.createSession(owner);
  const path = chain("turn", TURN_PATH, null);
  await store.appendEntries(owner, id, path);
  const known = path[TURN_PATH - TURN_NEW - 1]?.id as string;
  const timed = async (read: () => Promise<number>, expected: number) => {
    const times: number[] = [];
    for (let i = 0; i < reads + 2; i++) {
      const started = performance.now();
      const count = await read();
      if (count !== expected) throw new Error(`${name}: a turn read returned ${count} entries`);
      if (i >= 2) times.push(performance.now() - started); // the first two warm caches
    }
    return median(times);
  };
  const wholeMs = await timed(async () => (await store.readBranch(owner, id)).length, TURN_PATH);
  const sinceMs = await timed(
    async () => (await store.readBranchSince(owner, id, known)).entries.length,
    TURN_NEW,
  );
  return { backend: name, wholeMs, sinceMs };
}

/** 1,000 turns: append the user's message and the answer under the leaf, read what is new. */
async function conversation(store: SessionStore): Promise<{ firstTurnsMs: number; lastTurnsMs: number }> {
  const owner = `bench-conversation-${Date.now()}`;
  const { id } = await store.createSession(owner);
  const times: number[] = [];
  let known: string | null = null;
  for (let turn = 0; turn < TURNS; turn++) {
    const started = performance.now();
    const user = entry(`u${turn}`, known);
    await store.appendEntries(owner, id, [user, entry(`a${turn}`, user.id)]);
    const read = await store.readBranchSince(owner, id, known);
    if (read.entries.length !== 2) throw new Error(`turn ${turn} read ${read.entries.length} new entries`);
    known = read.entries[1]?.id ?? null;
    times.push(performance.now() - started);
  }
  return { firstTurnsMs: median(times.slice(0, 100)), lastTurnsMs: median(times.slice(-100)) };
}

async function onStore(name: string, store: SessionStore, reads: number): Promise<TurnRow> {
  await store.init();
  try {
    return { ...(await pathReads(name, store, reads)), ...(await conversation(store)) };
  } finally {
    await store.close();
  }
}

/** Every backend, in one process; `dir` holds the file-backed stores. */
export async function measureStoreTurns(dir: string, pgUrl: string, reads = 60): Promise<TurnRow[]> {
  return [
    await onStore("memory", new MemoryStore(), reads),
    await onStore("jsonl", new JsonlStore({ root: join(dir, "turn-jsonl") }), reads),
    await onStore("sqlite", new SqliteStore({ path: join(dir, "turn.db") }), reads),
    await onStore("postgres", new PostgresStore({ connectionString: pgUrl }), reads),
  ];
}

export function turnTable(rows: readonly TurnRow[]): string {
  return [
    `| backend | whole path: \`readBranch\` of ${TURN_PATH.toLocaleString("en")} (ms) | new part: \`readBranchSince\` of the last ${TURN_NEW} (ms) | ratio | turn, first 100 of ${TURNS.toLocaleString("en")} (ms) | turn, last 100 (ms) |`,
    "|---|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.backend} | ${r.wholeMs.toFixed(2)} | ${r.sinceMs.toFixed(3)} | ${(r.wholeMs / r.sinceMs).toFixed(0)}× | ${r.firstTurnsMs.toFixed(2)} | ${r.lastTurnsMs.toFixed(2)} |`,
    ),
  ].join("\n");
}

export function turnGoals(rows: readonly TurnRow[]): Goal[] {
  const group = "stores: an agent's turn";
  return rows.flatMap((row) => {
    const bound = PATH_TARGET[row.backend];
    return bound === undefined
      ? []
      : [
          {
            group,
            what: `${row.backend}: \`readBranch\` of a ${TURN_PATH.toLocaleString("en")}-entry path`,
            value: row.wholeMs,
            unit: "ms" as const,
            bound,
          },
        ];
  });
}
