// One tenant must not stall another (issue 16.1), per whole-session route: user B lists its sessions
// one request at a time (GET /v1/sessions?limit=5, 5 ms apart) while user A loops one of
// GET …/tree, …/context, …/export, …/branch with several connections on a 30,000-entry session
// (about 10.5 MB). B's p50/p99 per run, then the median over runs; on SQLite and on PostgreSQL.
// The server runs in a child process (`sessiontree serve`), A in another (test/server/tenant-hammer.ts), so
// neither A's answers nor the server's work delay B's client. The server also reports how long its
// event loop went without a turn (bench/loop-probe.ts), in wall time and in CPU time: on a machine
// busy with other work B's wall-clock figures include waits for a core, the CPU figure does not.
//   npm run bench:stall -- [--runs 3] [--seconds 5] [--entries 30000] [--workers 4]
//                          [--routes tree,context,export,branch] [--only sqlite|postgres] [--out file.md]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { freshPgDatabase } from "../test/server/helpers.js";
import {
  bigSessionJsonl,
  hammerChild,
  importSession,
  keyFor,
  type Latencies,
  measureSmallReads,
  type ServeTarget,
  serveChild,
} from "../test/server/tenant-load.js";

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "3" },
    seconds: { type: "string", default: "5" },
    entries: { type: "string", default: "30000" },
    workers: { type: "string", default: "4" },
    routes: { type: "string", default: "tree,context,export,branch" },
    only: { type: "string" },
    out: { type: "string" },
  },
});
const RUNS = Number(args.runs);
const MS = Number(args.seconds) * 1000;
const ROUTES = (args.routes as string).split(",").filter(Boolean);

interface Row {
  backend: string;
  /** "(none)": B alone. */
  hammered: string;
  "B p50 (median)": number;
  "B p99 (median)": number;
  "B p99 (worst run)": number;
  "B max": number;
  "B requests": number;
  "A answered": number;
  "A refused (429)": number;
  /** The server's longest time without an event-loop turn, worst run: wall ms, then CPU ms. */
  "loop stall max (wall)": number;
  "loop stall max (CPU)": number;
  "loop stall p99 (CPU)": number;
}

interface Probe {
  wall: { p99: number; max: number };
  cpu: { p99: number; max: number };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

function row(
  backend: string,
  hammered: string,
  runs: Latencies[],
  a: Record<number, number>,
  probes: Probe[],
): Row {
  return {
    backend,
    hammered,
    "B p50 (median)": median(runs.map((r) => r.p50)),
    "B p99 (median)": median(runs.map((r) => r.p99)),
    "B p99 (worst run)": Math.max(...runs.map((r) => r.p99)),
    "B max": Math.max(...runs.map((r) => r.max)),
    "B requests": runs.reduce((sum, r) => sum + r.count, 0),
    "A answered": a[200] ?? 0,
    "A refused (429)": a[429] ?? 0,
    "loop stall max (wall)": Math.max(...probes.map((p) => p.wall.max)),
    "loop stall max (CPU)": Math.max(...probes.map((p) => p.cpu.max)),
    "loop stall p99 (CPU)": median(probes.map((p) => p.cpu.p99)),
  };
}

/** B's latencies for one run, with the server's event-loop figures over the same window. */
async function measured(
  url: string,
  key: string,
  pid: number,
  probeFile: string,
): Promise<[Latencies, Probe]> {
  process.kill(pid, "SIGUSR2"); // starts the window
  const latencies = await measureSmallReads(url, key, MS);
  process.kill(pid, "SIGUSR2");
  await new Promise((resolve) => setTimeout(resolve, 100));
  return [latencies, JSON.parse(readFileSync(probeFile, "utf8")) as Probe];
}

async function backendRows(backend: string, target: ServeTarget, dir: string): Promise<Row[]> {
  const keyA = await keyFor(target, "tenant-a");
  const keyB = await keyFor(target, "tenant-b");
  const probeFile = join(dir, `probe-${backend}.json`);
  const setup = {
    preload: [pathToFileURL(join(import.meta.dirname, "loop-probe.ts")).href],
    env: { ST_LOOP_PROBE_FILE: probeFile },
  };
  const server = await serveChild(target, ["--rate-limit", "0"], setup);
  const pid = server.child.pid as number;
  try {
    const session = await importSession(server.url, keyA, bigSessionJsonl(Number(args.entries)));
    const alone: Array<[Latencies, Probe]> = [];
    for (let i = 0; i < RUNS; i++) alone.push(await measured(server.url, keyB, pid, probeFile));
    const [aloneLatencies, aloneProbes] = split(alone);
    const rows = [row(backend, "(none)", aloneLatencies, {}, aloneProbes)];
    console.table(rows);
    for (const route of ROUTES) {
      const runs: Array<[Latencies, Probe]> = [];
      const answered: Record<number, number> = {};
      for (let i = 0; i < RUNS; i++) {
        const path = `/v1/sessions/${session}/${route}`;
        const a = await hammerChild(server.url, keyA, path, Number(args.workers));
        await new Promise((resolve) => setTimeout(resolve, 500));
        runs.push(await measured(server.url, keyB, pid, probeFile));
        for (const [status, count] of Object.entries(await a.stop()))
          answered[Number(status)] = (answered[Number(status)] ?? 0) + count;
      }
      const [latencies, probes] = split(runs);
      rows.push(row(backend, route, latencies, answered, probes));
      console.table(rows.slice(-1));
    }
    return rows;
  } finally {
    await server.stop();
  }
}

function split(runs: Array<[Latencies, Probe]>): [Latencies[], Probe[]] {
  return [runs.map(([latencies]) => latencies), runs.map(([, probe]) => probe)];
}

async function onPostgres(dir: string): Promise<Row[]> {
  let stop: (() => void) | undefined;
  if (!process.env.SESSIONTREE_TEST_PG_URL) {
    // scripts/pg.mjs is plain JS without types: import it by URL.
    const pg = await import(pathToFileURL(join(import.meta.dirname, "..", "scripts", "pg.mjs")).href);
    const started = (await pg.startPostgres()) as { url: string; stop: () => void };
    process.env.SESSIONTREE_TEST_PG_URL = started.url;
    stop = started.stop;
  }
  const database = await freshPgDatabase();
  try {
    return await backendRows("postgres", { database: database.url }, dir);
  } finally {
    await database.drop();
    stop?.();
  }
}

function report(rows: Row[], load: number[]): string {
  const columns = Object.keys(rows[0] ?? {}) as Array<keyof Row>;
  return [
    "## One tenant must not stall another, per whole-session route",
    "",
    "Generated by `npm run bench:stall` (bench/tenant-stall.ts). User B sends `GET /v1/sessions?limit=5`",
    `one at a time (5 ms apart) for ${args.seconds} s per run, ${RUNS} runs, alone and while user A loops one`,
    `whole-session route with ${args.workers} connections on a ${args.entries}-entry session (about 350 bytes`,
    "an entry). Latencies in ms as the client sees them; p50/p99 are medians over the runs.",
    "",
    `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version};`,
    `load average before the run ${load.map((l) => l.toFixed(2)).join(", ")}${(load[0] ?? 0) > cpus().length ? " (busy with other work: figures are upper bounds)" : ""}.`,
    "",
    `| ${columns.join(" | ")} |`,
    `|${columns.map((_c, i) => (i < 2 ? "---" : "---:")).join("|")}|`,
    ...rows.map((r) => `| ${columns.map((c) => r[c]).join(" | ")} |`),
    "",
    "Target: B's p99 ≤ 50 ms while A hammers. The loop-stall columns are the server's longest time",
    "without an event-loop turn (worst run), in wall time and in the process's CPU time (all threads),",
    "and the median over runs of the p99 CPU stall: the CPU figures do not count waits for a core.",
    "",
  ].join("\n");
}

const load = loadavg();
const rows: Row[] = [];
const dir = mkdtempSync(join(tmpdir(), "st-bench-stall-"));
try {
  if (args.only !== "postgres") rows.push(...(await backendRows("sqlite", { data: join(dir, "data") }, dir)));
  if (args.only !== "sqlite") rows.push(...(await onPostgres(dir)));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const text = report(rows, load);
console.log(text);
if (args.out) writeFileSync(args.out, text);
