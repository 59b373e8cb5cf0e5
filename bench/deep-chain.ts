/**
 * getBranch, buildSessionContext, getChildren and getTree on a 200,000-deep chain (every entry the
 * child of the one before, as in one very long conversation), ours beside pi 0.73.1 in the same
 * process. Both managers are in memory and hold the same messages; runs are interleaved and the
 * median is printed. pi's getBranch and context use `unshift` (O(n²)), its getChildren scans every
 * entry (pi #3068, #3104).
 *
 * Usage: npm run bench:deep [-- <depth> <runs>]   (defaults: 200000 entries, 3 runs)
 */
import { availableParallelism, loadavg } from "node:os";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { SessionManager } from "../src/session/session-manager.js";
import { median } from "./stats.js";

const depth = Number(process.argv[2] ?? 200_000);
const runs = Number(process.argv[3] ?? 3);

type Manager = Pick<
  SessionManager,
  "appendMessage" | "getBranch" | "buildSessionContext" | "getChildren" | "getTree"
>;

/** Fills a manager with `depth` alternating user/assistant messages; returns the first and middle ids. */
function fill(sm: Manager): { first: string; middle: string } {
  let first = "";
  let middle = "";
  for (let i = 0; i < depth; i++) {
    const id =
      i % 2 === 0
        ? sm.appendMessage({ role: "user", content: `question ${i}`, timestamp: i })
        : sm.appendMessage({
            role: "assistant",
            content: [{ type: "text", text: `answer ${i}` }],
            provider: "anthropic",
            model: "claude-sonnet-4-5",
            api: "anthropic-messages",
            stopReason: "stop",
            timestamp: i,
          });
    if (i === 0) first = id;
    if (i === depth >> 1) middle = id;
  }
  return { first, middle };
}

/**
 * CPU milliseconds (user + system) of one call. On a shared, loaded machine wall time mostly
 * measures the wait for a core; CPU time measures the work.
 */
function cpuMs(fn: () => unknown): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

const appendMs: Record<string, number> = {};

function build(name: string, sm: Manager) {
  let ids = { first: "", middle: "" };
  appendMs[name] = cpuMs(() => {
    ids = fill(sm);
  });
  console.error(`${name}: ${depth} appends in ${appendMs[name].toFixed(0)} ms`);
  return { sm, ...ids };
}

const contenders = {
  ours: build("ours", SessionManager.inMemory("/bench")),
  pi: build("pi", PiSessionManager.inMemory("/bench") as unknown as Manager),
};

const operations: Record<string, (c: (typeof contenders)["ours"]) => unknown> = {
  "getBranch() (leaf)": (c) => c.sm.getBranch(),
  "getBranch(middle)": (c) => c.sm.getBranch(c.middle),
  buildSessionContext: (c) => c.sm.buildSessionContext(),
  "getChildren(first)": (c) => c.sm.getChildren(c.first),
  getTree: (c) => c.sm.getTree(),
};

const rows: { operation: string; ours: number; pi: number }[] = [
  {
    operation: `${depth.toLocaleString("en")} × appendMessage (one run)`,
    ours: appendMs.ours ?? 0,
    pi: appendMs.pi ?? 0,
  },
];
for (const [operation, run] of Object.entries(operations)) {
  // Sanity: both answer alike before anything is timed.
  const oursResult = run(contenders.ours) as unknown[] | { messages: unknown[] };
  const piResult = run(contenders.pi) as unknown[] | { messages: unknown[] };
  const size = (r: typeof oursResult) => (Array.isArray(r) ? r.length : r.messages.length);
  if (size(oursResult) !== size(piResult)) throw new Error(`${operation}: ours and pi disagree`);
  const times = { ours: [] as number[], pi: [] as number[] };
  for (let i = 0; i < runs; i++) {
    times.ours.push(cpuMs(() => run(contenders.ours)));
    times.pi.push(cpuMs(() => run(contenders.pi)));
  }
  rows.push({ operation, ours: median(times.ours), pi: median(times.pi) });
  console.error(`${operation}: done`);
}

const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(2)} ms`);
console.log(
  `\nDeep chain: ${depth.toLocaleString("en")} entries, CPU time, median of ${runs} runs (node ${process.version})\n`,
);
console.log(`| operation | sessiontree | pi 0.73.1 | pi / ours |`);
console.log(`|---|---:|---:|---:|`);
const times = (ratio: number) => `${ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(1)}×`;
for (const row of rows) {
  console.log(`| ${row.operation} | ${fmt(row.ours)} | ${fmt(row.pi)} | ${times(row.pi / row.ours)} |`);
}
const load = loadavg()[0] ?? 0;
console.log(`
1-minute load average ${load.toFixed(1)} on ${availableParallelism()} cores while measuring.`);
