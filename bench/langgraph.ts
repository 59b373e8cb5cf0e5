/**
 * LangGraph checkpointers on the chat workload of issue 19: a user and an assistant message per
 * turn, the context (the thread's messages) read each turn, N turns (default 1,000; `--turns N`).
 * Contenders: SessionTreeSaver over SQLite, and LangGraph's MemorySaver, with the store appends a
 * turn takes (for profiling the saver). The comparison with every framework's default store,
 * SqliteSaver included, is bench/adapters.ts (`npm run bench:adapters`).
 *
 *   npx tsx bench/langgraph.ts [--turns 1000] [--saver-only]
 *
 * The model is a node answering at once (no network), so a turn's time is the graph's and the
 * checkpointer's. Prints a markdown table: turn latency (median, p95, last 100 turns' median),
 * storage bytes, the time to resume the thread in a new saver (read its state), and how many store
 * appends (transactions) a turn takes. The machine this runs on may be shared: run it a few times
 * and compare medians.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { type BaseCheckpointSaver, MemorySaver, MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { SessionTreeSaver } from "../src/adapters/langgraph/index.js";
import { openStore } from "../src/store/registry.js";
import { memorySaverBytes } from "./saver-bytes.js";
import { median } from "./stats.js";

const turnsFlag = process.argv.indexOf("--turns");
const TURNS = turnsFlag === -1 ? 1000 : Number(process.argv[turnsFlag + 1]);
/** `--saver-only`: the SessionTreeSaver run alone (MemorySaver's run is the slow part). */
const SAVER_ONLY = process.argv.includes("--saver-only");
const THREAD = "bench-thread";
/** Answers of a realistic size (a few hundred characters), different each turn. */
const ANSWER = "Here is what I found about that. ".repeat(8);

function chatGraph(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state: typeof MessagesAnnotation.State) => ({
      messages: [new AIMessage(`${ANSWER}(${state.messages.length} messages so far)`)],
    }))
    .addEdge("__start__", "agent")
    .compile({ checkpointer });
}

interface Result {
  name: string;
  times: number[];
  bytes: number;
  resumeMs: number | undefined;
  /** Store appends (transactions) per turn, for the SessionTreeSaver. */
  appendsPerTurn?: number;
}

async function runTurns(checkpointer: BaseCheckpointSaver): Promise<number[]> {
  const graph = chatGraph(checkpointer);
  const times: number[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    const start = performance.now();
    const state = await graph.invoke(
      { messages: [new HumanMessage(`Question number ${turn}: what about this?`)] },
      { configurable: { thread_id: THREAD } },
    );
    times.push(performance.now() - start);
    if (state.messages.length !== 2 * (turn + 1))
      throw new Error(`turn ${turn}: ${state.messages.length} messages`);
  }
  return times;
}

async function sessiontree(): Promise<Result> {
  const folder = mkdtempSync(join(tmpdir(), "sessiontree-bench-langgraph-"));
  const location = `sqlite:${join(folder, "graphs.db")}`;
  try {
    const store = await openStore(location);
    await store.init();
    // Each append is a store transaction: the saver's cost is mostly how many a turn takes.
    let appends = 0;
    const append = store.appendEntries.bind(store);
    store.appendEntries = (...args) => {
      appends++;
      return append(...args);
    };
    const times = await runTurns(new SessionTreeSaver({ store }));
    await store.close();
    const start = performance.now();
    const resumed = new SessionTreeSaver({ store: location });
    const state = await chatGraph(resumed).getState({ configurable: { thread_id: THREAD } });
    const resumeMs = performance.now() - start;
    if ((state.values.messages as unknown[]).length !== 2 * TURNS) throw new Error("resume lost messages");
    await resumed.close();
    const bytes = readdirSync(folder).reduce((sum, name) => sum + statSync(join(folder, name)).size, 0);
    return { name: "SessionTreeSaver (SQLite)", times, bytes, resumeMs, appendsPerTurn: appends / TURNS };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

async function memory(): Promise<Result> {
  const saver = new MemorySaver();
  const times = await runTurns(saver);
  return { name: "MemorySaver", times, bytes: memorySaverBytes(saver), resumeMs: undefined };
}

function p95(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] as number;
}

const ms = (value: number) => `${value.toFixed(2)} ms`;
const mb = (value: number) => `${(value / 1e6).toFixed(2)} MB`;

/**
 * The framework's own cost at the same sizes: the graph without a checkpointer, given the whole
 * history as input each turn (what a checkpointer's read would have given it).
 */
async function noCheckpointer(): Promise<Result> {
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state: typeof MessagesAnnotation.State) => ({
      messages: [new AIMessage(`${ANSWER}(${state.messages.length} messages so far)`)],
    }))
    .addEdge("__start__", "agent")
    .compile();
  let history: unknown[] = [];
  const times: number[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    const start = performance.now();
    const state = await graph.invoke({
      messages: [
        ...(history as HumanMessage[]),
        new HumanMessage(`Question number ${turn}: what about this?`),
      ],
    });
    times.push(performance.now() - start);
    history = state.messages;
  }
  return {
    name: "no checkpointer (history passed in: LangGraph's own cost)",
    times,
    bytes: 0,
    resumeMs: undefined,
  };
}

const results = SAVER_ONLY
  ? [await sessiontree()]
  : [await sessiontree(), await memory(), await noCheckpointer()];
console.log(`\nLangGraph chat workload: ${TURNS} turns (a user and an assistant message each)\n`);
console.log(
  "| checkpointer | turn median | turn p95 | last 100 turns median | storage | resume | store appends / turn |",
);
console.log("|---|---|---|---|---|---|---|");
for (const r of results) {
  const last = median(r.times.slice(-100));
  const resume = r.resumeMs === undefined ? "n/a (in memory)" : ms(r.resumeMs);
  console.log(
    `| ${r.name} | ${ms(median(r.times))} | ${ms(p95(r.times))} | ${ms(last)} | ${mb(r.bytes)} | ${resume} | ${r.appendsPerTurn ?? "n/a"} |`,
  );
}
