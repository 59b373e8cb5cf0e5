/**
 * Each framework adapter against the framework's own default store, on the chat workload of
 * issue 19: per turn, the context read, then a user and an assistant message stored; N turns
 * (default 1,000; `--turns N`). A contender that has not finished when its time cap runs out
 * (`--cap` seconds of CPU time, default 30: a wall-clock cap would cut short whoever runs while the
 * shared machine is busiest) or whose process passes 2 GB is stopped there and reported with the
 * turns it did.
 *
 *   npm run bench:adapters [-- --turns 1000 --cap 30 --only langgraph]
 *
 * Contenders, each in a process of its own (one's heap does not slow the next):
 * - OpenAI Agents: `MemorySession` (the SDK's in-memory session) vs `SessionTreeSession` over the
 *   SQLite and the JSONL store. A turn is what the Runner does: `getItems()`, `addItems([user])`,
 *   `addItems([assistant])`.
 * - AI SDK: the persistence guide's store (the chat's whole `UIMessage[]` written to
 *   `.chats/<id>.json` on each save, read back on load) vs `createChatStore` over SQLite and JSONL.
 *   A turn is `loadChat`, then `saveChat` with the loaded messages, the user's and the answer.
 * - LangGraph: `MemorySaver`, `SqliteSaver` (@langchain/langgraph-checkpoint-sqlite) and
 *   `SessionTreeSaver` over SQLite, under a compiled StateGraph with MessagesAnnotation whose node
 *   answers at once (no model): a turn is one `invoke` with the user's message.
 *
 * Columns: turn latency (median, p95, median of the last 100 turns done), CPU per turn (user +
 * system time of the process / turns: steadier than wall time on a shared machine), storage
 * (files on disk, WAL included; for an in-memory store, the bytes of what it holds), and resume:
 * the time for a new instance over the same storage to read the conversation back (in-memory
 * stores have nothing to resume from). The machine may be shared: compare ratios within one run.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memorySaverBytes } from "./saver-bytes.js";
import { median } from "./stats.js";

const flag = (name: string, fallback: string): string => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : (process.argv[at + 1] as string);
};
const TURNS = Number(flag("turns", "1000"));
/** The time cap, in milliseconds of the process's CPU time (user + system). */
const CAP_MS = Number(flag("cap", "30")) * 1000;
const RSS_LIMIT = 2 * 1024 ** 3;
const ANSWER = "Here is what I found about that. ".repeat(8);
const question = (turn: number) => `Question number ${turn}: what about this?`;
const answer = (turn: number) => `${ANSWER}(turn ${turn})`;

/** What one contender measured, printed by its child process as one JSON line. */
interface Outcome {
  times: number[];
  cpuMs: number;
  stoppedBy: "done" | "time cap" | "memory";
  bytes: number;
  resumeMs: number | null;
}

interface Contender {
  framework: string;
  store: string;
  ours: boolean;
  run(folder: string): Promise<Outcome>;
}

type Turn = (turn: number) => Promise<void>;

/** Runs turns until TURNS, the time cap or the memory limit; the times of each and the CPU used. */
async function runTurns(turn: Turn): Promise<Pick<Outcome, "times" | "cpuMs" | "stoppedBy">> {
  const times: number[] = [];
  const cpu = process.cpuUsage();
  const cpuSpent = () => {
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / 1000;
  };
  let stoppedBy: Outcome["stoppedBy"] = "done";
  for (let i = 0; i < TURNS; i++) {
    const start = performance.now();
    await turn(i);
    times.push(performance.now() - start);
    if (cpuSpent() > CAP_MS && i < TURNS - 1) stoppedBy = "time cap";
    else if (process.memoryUsage.rss() > RSS_LIMIT && i < TURNS - 1) stoppedBy = "memory";
    if (stoppedBy !== "done") break;
  }
  return { times, cpuMs: cpuSpent(), stoppedBy };
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await fn();
  return [value, performance.now() - start];
}

function folderBytes(folder: string): number {
  let sum = 0;
  for (const name of readdirSync(folder, { recursive: true }) as string[]) {
    const stat = statSync(join(folder, name));
    if (stat.isFile()) sum += stat.size;
  }
  return sum;
}

function check(count: number, expected: number, what: string): void {
  if (count !== expected) throw new Error(`${what}: ${count} messages, expected ${expected}`);
}

// ---------- OpenAI Agents ----------

function agentsItems(turn: number) {
  const user = { type: "message" as const, role: "user" as const, content: question(turn) };
  const assistant = {
    type: "message" as const,
    role: "assistant" as const,
    status: "completed" as const,
    content: [{ type: "output_text" as const, text: answer(turn) }],
  };
  return { user, assistant };
}

interface AgentsSessionLike {
  getItems(): Promise<unknown[]>;
  addItems(items: never[]): Promise<void>;
}

function agentsTurn(session: AgentsSessionLike, expectTurns = true): Turn {
  return async (turn) => {
    const items = await session.getItems();
    if (expectTurns) check(items.length, 2 * turn, "getItems");
    const { user, assistant } = agentsItems(turn);
    await session.addItems([user as never]);
    await session.addItems([assistant as never]);
  };
}

const agentsMemory: Contender = {
  framework: "OpenAI Agents",
  store: "MemorySession (the SDK's)",
  ours: false,
  async run() {
    const { MemorySession } = await import("@openai/agents");
    const session = new MemorySession();
    const done = await runTurns(agentsTurn(session));
    const bytes = Buffer.byteLength(JSON.stringify(await session.getItems()));
    return { ...done, bytes, resumeMs: null };
  },
};

function agentsOurs(kind: "sqlite" | "jsonl"): Contender {
  return {
    framework: "OpenAI Agents",
    store: `SessionTreeSession, ${kind === "sqlite" ? "SQLite" : "JSONL"} store`,
    ours: true,
    async run(folder) {
      const { SessionTreeSession } = await import("../src/adapters/openai-agents/index.js");
      const store = kind === "sqlite" ? `sqlite:${join(folder, "agents.db")}` : `jsonl:${folder}`;
      const session = new SessionTreeSession({ store, sessionId: "bench" });
      const done = await runTurns(agentsTurn(session));
      await session.close();
      const resumed = new SessionTreeSession({ store, sessionId: "bench" });
      const [items, resumeMs] = await timed(() => resumed.getItems());
      check(items.length, 2 * done.times.length, "resume");
      await resumed.close();
      return { ...done, bytes: folderBytes(folder), resumeMs };
    },
  };
}

// ---------- AI SDK ----------

interface Chat {
  id: string;
  role: "user" | "assistant";
  parts: Array<{ type: "text"; text: string }>;
}

interface ChatPersistence {
  loadChat(chatId: string): Promise<Chat[]>;
  saveChat(input: { chatId: string; messages: Chat[] }): Promise<void>;
}

function chatTurn(chats: ChatPersistence): Turn {
  return async (turn) => {
    const messages = await chats.loadChat("bench");
    check(messages.length, 2 * turn, "loadChat");
    const user: Chat = { id: `u${turn}`, role: "user", parts: [{ type: "text", text: question(turn) }] };
    const reply: Chat = { id: `a${turn}`, role: "assistant", parts: [{ type: "text", text: answer(turn) }] };
    await chats.saveChat({ chatId: "bench", messages: [...messages, user, reply] });
  };
}

/**
 * The AI SDK persistence guide's file store (ai-sdk.dev, "Chatbot Message Persistence"): each
 * chat a JSON file under `.chats/`, written whole on every save, read whole on every load.
 */
function guideFileStore(root: string): ChatPersistence {
  const chatFile = (id: string) => {
    const chatDir = join(root, ".chats");
    if (!existsSync(chatDir)) mkdirSync(chatDir, { recursive: true });
    return join(chatDir, `${id}.json`);
  };
  return {
    async loadChat(id) {
      const file = chatFile(id);
      if (!existsSync(file)) writeFileSync(file, "[]"); // the guide's createChat
      return JSON.parse(readFileSync(file, "utf8")) as Chat[];
    },
    async saveChat({ chatId, messages }) {
      writeFileSync(chatFile(chatId), JSON.stringify(messages, null, 2));
    },
  };
}

const aiSdkGuide: Contender = {
  framework: "AI SDK",
  store: "persistence guide (whole UIMessage[] as a JSON file)",
  ours: false,
  async run(folder) {
    const done = await runTurns(chatTurn(guideFileStore(folder)));
    const [messages, resumeMs] = await timed(() => guideFileStore(folder).loadChat("bench"));
    check(messages.length, 2 * done.times.length, "resume");
    return { ...done, bytes: folderBytes(folder), resumeMs };
  },
};

function aiSdkOurs(kind: "sqlite" | "jsonl"): Contender {
  return {
    framework: "AI SDK",
    store: `createChatStore, ${kind === "sqlite" ? "SQLite" : "JSONL"} store`,
    ours: true,
    async run(folder) {
      const { createChatStore } = await import("../src/adapters/ai-sdk/index.js");
      const store = kind === "sqlite" ? `sqlite:${join(folder, "chats.db")}` : `jsonl:${folder}`;
      const chats = createChatStore({ store });
      const done = await runTurns(chatTurn(chats as unknown as ChatPersistence));
      await chats.close();
      const resumed = createChatStore({ store });
      const [messages, resumeMs] = await timed(() => resumed.loadChat("bench"));
      check(messages.length, 2 * done.times.length, "resume");
      await resumed.close();
      return { ...done, bytes: folderBytes(folder), resumeMs };
    },
  };
}

// ---------- LangGraph ----------

async function chatGraph(checkpointer: unknown) {
  const { AIMessage } = await import("@langchain/core/messages");
  const { MessagesAnnotation, StateGraph } = await import("@langchain/langgraph");
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state: typeof MessagesAnnotation.State) => ({
      messages: [new AIMessage(answer(state.messages.length >> 1))],
    }))
    .addEdge("__start__", "agent")
    .compile({ checkpointer: checkpointer as never });
}

async function graphTurns(checkpointer: unknown) {
  const { HumanMessage } = await import("@langchain/core/messages");
  const graph = await chatGraph(checkpointer);
  return runTurns(async (turn) => {
    const state = await graph.invoke(
      { messages: [new HumanMessage(question(turn))] },
      { configurable: { thread_id: "bench" } },
    );
    check(state.messages.length, 2 * (turn + 1), "invoke");
  });
}

/** The messages a new graph over `checkpointer` reads back for the thread, and the time it took. */
async function graphResume(checkpointer: unknown, turns: number): Promise<number> {
  const [state, ms] = await timed(async () =>
    (await chatGraph(checkpointer)).getState({ configurable: { thread_id: "bench" } }),
  );
  check((state.values.messages as unknown[]).length, 2 * turns, "resume");
  return ms;
}

const langgraphMemory: Contender = {
  framework: "LangGraph",
  store: "MemorySaver",
  ours: false,
  async run() {
    const { MemorySaver } = await import("@langchain/langgraph");
    const saver = new MemorySaver();
    const done = await graphTurns(saver);
    return { ...done, bytes: memorySaverBytes(saver), resumeMs: null };
  },
};

const langgraphSqlite: Contender = {
  framework: "LangGraph",
  store: "SqliteSaver (@langchain/langgraph-checkpoint-sqlite)",
  ours: false,
  async run(folder) {
    const { SqliteSaver } = await import("@langchain/langgraph-checkpoint-sqlite");
    const file = join(folder, "graphs.db");
    const saver = SqliteSaver.fromConnString(file);
    const done = await graphTurns(saver);
    saver.db.close();
    const resumed = SqliteSaver.fromConnString(file);
    const resumeMs = await graphResume(resumed, done.times.length);
    resumed.db.close();
    return { ...done, bytes: folderBytes(folder), resumeMs };
  },
};

const langgraphOurs: Contender = {
  framework: "LangGraph",
  store: "SessionTreeSaver, SQLite store",
  ours: true,
  async run(folder) {
    const { SessionTreeSaver } = await import("../src/adapters/langgraph/index.js");
    const location = `sqlite:${join(folder, "graphs.db")}`;
    const saver = new SessionTreeSaver({ store: location });
    const done = await graphTurns(saver);
    await saver.close();
    const resumed = new SessionTreeSaver({ store: location });
    const resumeMs = await graphResume(resumed, done.times.length);
    await resumed.close();
    return { ...done, bytes: folderBytes(folder), resumeMs };
  },
};

const CONTENDERS: Record<string, Contender> = {
  "agents-memory": agentsMemory,
  "agents-sqlite": agentsOurs("sqlite"),
  "agents-jsonl": agentsOurs("jsonl"),
  "ai-sdk-file": aiSdkGuide,
  "ai-sdk-sqlite": aiSdkOurs("sqlite"),
  "ai-sdk-jsonl": aiSdkOurs("jsonl"),
  "langgraph-memory": langgraphMemory,
  "langgraph-sqlite": langgraphSqlite,
  "langgraph-ours": langgraphOurs,
};

// ---------- the run ----------

async function child(key: string): Promise<void> {
  const contender = CONTENDERS[key];
  if (!contender) throw new Error(`no contender ${key}`);
  const folder = mkdtempSync(join(tmpdir(), `sessiontree-bench-${key}-`));
  try {
    console.log(JSON.stringify(await contender.run(folder)));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

function runChild(key: string): Outcome {
  const args = ["--import", "tsx", "bench/adapters.ts", "--child", key, "--turns", `${TURNS}`];
  const run = spawnSync(process.execPath, [...args, "--cap", `${CAP_MS / 1000}`], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`${key} failed:\n${run.stderr}`);
  return JSON.parse(run.stdout.trim().split("\n").at(-1) as string) as Outcome;
}

function p95(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] as number;
}

const ms = (value: number) => (value >= 100 ? `${value.toFixed(0)} ms` : `${value.toFixed(2)} ms`);
const mb = (value: number) => `${(value / 1e6).toFixed(2)} MB`;

function row(c: Contender, r: Outcome): string {
  const done = r.times.length;
  const turns = r.stoppedBy === "done" ? `${done}` : `**${done}** (stopped: ${r.stoppedBy})`;
  const resume = r.resumeMs === null ? "n/a (in memory)" : ms(r.resumeMs);
  const name = c.ours ? `**${c.store}**` : c.store;
  return `| ${c.framework} | ${name} | ${turns} | ${ms(median(r.times))} | ${ms(p95(r.times))} | ${ms(median(r.times.slice(-100)))} | ${ms(r.cpuMs / done)} | ${mb(r.bytes)} | ${resume} |`;
}

async function main(): Promise<void> {
  const only = flag("only", "");
  const keys = Object.keys(CONTENDERS).filter((key) => key.startsWith(only));
  console.log(
    `\nAdapters vs each framework's default store: ${TURNS} turns (cap: ${CAP_MS / 1000} s of CPU each)\n`,
  );
  console.log(
    "| framework | store | turns | turn median | turn p95 | last 100 turns median | CPU / turn | storage | resume |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const key of keys) console.log(row(CONTENDERS[key] as Contender, runChild(key)));
}

const childKey = process.argv.indexOf("--child");
if (childKey === -1) await main();
else await child(process.argv[childKey + 1] as string);
