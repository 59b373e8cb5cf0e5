// One tenant must not stall another (issue 16.1), per heavy route: user B lists its sessions one
// request at a time (GET /v1/sessions?limit=5, 5 ms apart) while user A loops one heavy read with
// several connections on a 30,000-entry session (about 10.5 MB). B's p50/p99 per run, then the
// median over runs; on SQLite and on PostgreSQL. The server runs in a child process (`sessiontree
// serve`), A in another (test/server/tenant-hammer.ts), so neither A's answers nor the server's work
// delay B's client. The server also reports how long its event loop went without a turn
// (bench/loop-probe.ts), in wall time and in the main thread's CPU time: on a machine busy with
// other work B's wall-clock figures include waits for a core, the CPU figure does not.
// `npm run bench:server` runs the same measurement (`stallRows`) and prints it with its own.
//   npm run bench:stall -- [--runs 3] [--seconds 5] [--entries 30000] [--workers 4]
//                          [--routes tree,context,...] [--only sqlite|postgres] [--out file.md]
// A route is a session route (`tree`, `entries?limit=5000`) or a path (`/v1/stats`, `{id}`: the session).
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

/** Every route user A can hammer that reads a whole session or a large part of one. */
export const HEAVY_ROUTES = [
  "tree",
  "context",
  "branch",
  "export",
  "labels",
  "stats",
  "entries?limit=5000",
  "/v1/search?q=message",
  "/v1/stats",
];

export interface StallOptions {
  runs: number;
  /** Each run's length, in ms. */
  ms: number;
  entries: number;
  /** A's connections. */
  workers: number;
  routes: string[];
}

/** The target of issue 16.1: B's p99 while A hammers, in ms. */
export const TARGET_P99_MS = 50;

export interface Row {
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
  /** The server's longest time without an event-loop turn, worst run: wall ms, then main-thread CPU ms. */
  "loop stall max (wall)": number;
  "loop stall max (CPU)": number;
  "loop stall p99 (CPU)": number;
}

export interface Probe {
  window: number;
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
  ms: number,
): Promise<[Latencies, Probe]> {
  await probeWindow(pid, probeFile); // starts the window
  const latencies = await measureSmallReads(url, key, ms);
  return [latencies, await probeWindow(pid, probeFile)];
}

/** Asks the server's loop probe for the window that ends now, and waits until it is written. */
export async function probeWindow(pid: number, probeFile: string): Promise<Probe> {
  const before = probeRead(probeFile)?.window ?? 0;
  process.kill(pid, "SIGUSR2");
  for (;;) {
    const probe = probeRead(probeFile);
    if (probe && probe.window > before) return probe;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function probeRead(probeFile: string): Probe | null {
  try {
    return JSON.parse(readFileSync(probeFile, "utf8")) as Probe;
  } catch {
    return null; // not written yet
  }
}

/** B alone, then B while A hammers each route, on one backend (`dir`: where the probe writes). */
export async function stallRows(
  backend: string,
  target: ServeTarget,
  dir: string,
  options: StallOptions,
): Promise<Row[]> {
  const { runs: RUNS, ms, workers } = options;
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
    const session = await importSession(server.url, keyA, bigSessionJsonl(options.entries));
    const alone: Array<[Latencies, Probe]> = [];
    for (let i = 0; i < RUNS; i++) alone.push(await measured(server.url, keyB, pid, probeFile, ms));
    const [aloneLatencies, aloneProbes] = split(alone);
    const rows = [row(backend, "(none)", aloneLatencies, {}, aloneProbes)];
    console.table(rows);
    for (const route of options.routes) {
      const runs: Array<[Latencies, Probe]> = [];
      const answered: Record<number, number> = {};
      for (let i = 0; i < RUNS; i++) {
        const path = routePath(route, session);
        const a = await hammerChild(server.url, keyA, path, workers);
        await new Promise((resolve) => setTimeout(resolve, 500));
        runs.push(await measured(server.url, keyB, pid, probeFile, ms));
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

/** A route of the list: `tree` is `/v1/sessions/{id}/tree`; one starting with `/` is taken as is, `{id}` filled in. */
function routePath(route: string, session: string): string {
  return route.startsWith("/") ? route.replaceAll("{id}", session) : `/v1/sessions/${session}/${route}`;
}

function split(runs: Array<[Latencies, Probe]>): [Latencies[], Probe[]] {
  return [runs.map(([latencies]) => latencies), runs.map(([, probe]) => probe)];
}

/** `work` on a fresh PostgreSQL database (a throwaway server when SESSIONTREE_TEST_PG_URL is unset). */
export async function onPostgres<T>(work: (target: ServeTarget) => Promise<T>): Promise<T> {
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
    return await work({ database: database.url });
  } finally {
    await database.drop();
    stop?.();
  }
}

function report(rows: Row[], load: number[], options: StallOptions): string {
  const columns = Object.keys(rows[0] ?? {}) as Array<keyof Row>;
  return [
    "## One tenant must not stall another, per whole-session route",
    "",
    "Generated by `npm run bench:stall` (bench/tenant-stall.ts). User B sends `GET /v1/sessions?limit=5`",
    `one at a time (5 ms apart) for ${options.ms / 1000} s per run, ${options.runs} runs, alone and while user A loops one`,
    `heavy route with ${options.workers} connections on a ${options.entries}-entry session (about 350 bytes`,
    "an entry). Latencies in ms as the client sees them; p50/p99 are medians over the runs.",
    "",
    `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version};`,
    `load average before the run ${load.map((l) => l.toFixed(2)).join(", ")}${(load[0] ?? 0) > cpus().length ? " (busy with other work: figures are upper bounds)" : ""}.`,
    "",
    `| ${columns.join(" | ")} |`,
    `|${columns.map((_c, i) => (i < 2 ? "---" : "---:")).join("|")}|`,
    ...rows.map((r) => `| ${columns.map((c) => cell(r[c])).join(" | ")} |`),
    "",
    `Target: B's p99 ≤ ${TARGET_P99_MS} ms while A hammers. The loop-stall columns are the server's longest time`,
    "without an event-loop turn (worst run), in wall time and in the main thread's CPU time, and the",
    "median over runs of the p99 CPU stall: the CPU figures do not count waits for a core.",
    "",
  ].join("\n");
}

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      runs: { type: "string", default: "3" },
      seconds: { type: "string", default: "5" },
      entries: { type: "string", default: "30000" },
      workers: { type: "string", default: "4" },
      routes: { type: "string", default: HEAVY_ROUTES.join(",") },
      only: { type: "string" },
      out: { type: "string" },
    },
  });
  const options: StallOptions = {
    runs: Number(args.runs),
    ms: Number(args.seconds) * 1000,
    entries: Number(args.entries),
    workers: Number(args.workers),
    routes: (args.routes as string).split(",").filter(Boolean),
  };
  const load = loadavg();
  const rows: Row[] = [];
  const dir = mkdtempSync(join(tmpdir(), "st-bench-stall-"));
  try {
    if (args.only !== "postgres")
      rows.push(...(await stallRows("sqlite", { data: join(dir, "data") }, dir, options)));
    if (args.only !== "sqlite")
      rows.push(...(await onPostgres((target) => stallRows("postgres", target, dir, options))));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const text = report(rows, load, options);
  console.log(text);
  if (args.out) writeFileSync(args.out, text);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();

/** A figure as the table shows it: ms to a tenth (a median of two is a sum's half: 5.199999…). */
function cell(value: string | number): string {
  return typeof value === "number" && !Number.isInteger(value) ? value.toFixed(1) : String(value);
}
