// Load test of the HTTP service: appends/s and latency percentiles, on SQLite and on PostgreSQL.
// The server runs in a child process (as `sessiontree serve` does), autocannon drives it over
// loopback for a bounded time, and the results go to docs/server-benchmarks.md.
// Then the tenant-stall run (issue 16.1, bench/tenant-stall.ts): user B lists its sessions one
// request at a time, alone and while user A (another process) loops each heavy route on a
// 30,000-entry (about 10 MB) session; B's p50/p99 each way, against the 50 ms target.
//   npm run bench:server -- [--duration 10] [--warmup 2] [--connections 32] [--sessions 64] [--only http|sqlite|postgres]
//                           [--stall-seconds 5] [--stall-runs 1] [--stall-entries 30000] [--stall-workers 4]
//                           [--stall-routes tree,context,...] [--no-stall] [--cpu-prof <dir>]
//                           [--server-flags "--perf-basic-prof"]
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { SessionTreeClient } from "../src/client/index.js";
import { createApiKey, openServiceDb } from "../src/server/index.js";
import { freshPgDatabase } from "../test/server/helpers.js";
import type { Goal } from "./goals.js";
import {
  HEAVY_ROUTES,
  type StallOptions,
  type Row as StallRow,
  stallRows,
  TARGET_P99_MS,
} from "./tenant-stall.js";

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; p90: number; average: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
  "2xx": number;
}
interface AutocannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  requests: Array<{ setupRequest: (req: AutocannonRequest) => AutocannonRequest }>;
}) => Promise<AutocannonResult>;

// autocannon ships no types: load it through require and describe the part used here.
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

const { values: args } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    /** Seconds of the same load before the measured run (not counted). */
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "16" },
    sessions: { type: "string", default: "64" },
    only: { type: "string" },
    out: { type: "string", default: "docs/server-benchmarks.md" },
    "goals-json": { type: "string" },
    "stall-seconds": { type: "string", default: "5" },
    "stall-runs": { type: "string", default: "1" },
    "stall-entries": { type: "string", default: "30000" },
    "stall-workers": { type: "string", default: "4" },
    "stall-routes": { type: "string", default: HEAVY_ROUTES.join(",") },
    "no-stall": { type: "boolean", default: false },
    /** A folder: the server child writes a V8 CPU profile there (node --cpu-prof) as it exits. */
    "cpu-prof": { type: "string" },
    /** More node flags for the server child, space-separated (e.g. --perf-basic-prof for perf). */
    "server-flags": { type: "string", default: "" },
  },
});

async function startServer(flags: string[]): Promise<{ child: ChildProcess; url: string }> {
  const script = join(import.meta.dirname, "..", "test", "server", "cli-child.ts");
  return await startChild([script, "serve", "--port", "0", "--rate-limit", "0", "--no-access-log", ...flags]);
}

/** A server child (a script run through tsx, with the profiling flags) and the URL it listens on. */
async function startChild(script: string[]): Promise<{ child: ChildProcess; url: string }> {
  const profile = args["cpu-prof"] ? ["--cpu-prof", "--cpu-prof-dir", args["cpu-prof"]] : [];
  const argv = [
    ...profile,
    ...(args["server-flags"] as string).split(" ").filter(Boolean),
    "--import",
    "tsx",
    ...script,
  ];
  const child = spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "inherit"] });
  child.stdout?.setEncoding("utf8");
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
    child.stdout?.on("data", (chunk: string) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
  });
  return { child, url };
}

/** CPU time (user + system) a process has used so far, from /proc (Linux), in ms; null elsewhere. */
function cpuMs(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

interface Row {
  backend: string;
  appendsPerSec: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  total: number;
  errors: number;
  /** Server CPU per append: what the server would sustain on one free core is 1000 / this. */
  cpuMsPerAppend: number | null;
}

async function run(backend: string, target: { data?: string; database?: string }): Promise<Row> {
  const flags = target.database ? ["--database", target.database] : ["--data", target.data as string];
  const db = await openServiceDb(target);
  const { key } = await createApiKey(db, "bench", "bench");
  await db.close();
  const server = await startServer(flags);
  const client = new SessionTreeClient({ baseUrl: server.url, token: key });
  return await appendLoad(backend, server, key, async () => {
    const sessions: string[] = [];
    for (let i = 0; i < Number(args.sessions); i++)
      sessions.push((await client.createSession({ cwd: "/bench" })).id);
    return sessions;
  });
}

/** The same load against bench/bare-http.ts: HTTP in and out, nothing stored. */
async function ceilingRun(): Promise<Row> {
  const server = await startChild([join(import.meta.dirname, "bare-http.ts")]);
  const sessions = Array.from({ length: Number(args.sessions) }, (_, i) => `session-${i}`);
  return await appendLoad(HTTP_ALONE, server, "bench", async () => sessions);
}

const HTTP_ALONE = "HTTP alone (no store)";

/** autocannon's appends to `server` (stopped after), one of the sessions each, chained by the server. */
async function appendLoad(
  backend: string,
  server: { child: ChildProcess; url: string },
  key: string,
  createSessions: () => Promise<string[]>,
): Promise<Row> {
  const { child, url } = server;
  try {
    const sessions = await createSessions();
    let n = 0;
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const setupRequest = (req: AutocannonRequest): AutocannonRequest => {
      const session = sessions[n++ % sessions.length];
      const message = {
        role: "user",
        content: `message ${n}: ${"lorem ipsum ".repeat(8)}`,
        timestamp: Date.now(),
      };
      const body = JSON.stringify({ entries: [{ type: "message", message }] });
      return { ...req, method: "POST", path: `/v1/sessions/${session}/entries`, headers, body };
    };
    const load = (duration: number) =>
      autocannon({ url, connections: Number(args.connections), duration, requests: [{ setupRequest }] });
    // Unmeasured first: the figures are the server's steady state, not V8 compiling its code.
    if (Number(args.warmup) > 0) await load(Number(args.warmup));
    const cpuBefore = cpuMs(child.pid);
    const result = await load(Number(args.duration));
    const ok = result["2xx"];
    const cpuAfter = cpuMs(child.pid);
    const cpu = cpuBefore === null || cpuAfter === null || ok === 0 ? null : (cpuAfter - cpuBefore) / ok;
    return {
      backend,
      appendsPerSec: Math.round(ok / result.duration),
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      total: ok,
      errors: result.non2xx + result.errors + result.timeouts,
      cpuMsPerAppend: cpu === null ? null : Number(cpu.toFixed(3)),
    };
  } finally {
    child.kill("SIGTERM");
    if (child.exitCode === null) await new Promise((resolve) => child.once("exit", resolve));
  }
}

const stallOptions: StallOptions = {
  runs: Number(args["stall-runs"]),
  ms: Number(args["stall-seconds"]) * 1000,
  entries: Number(args["stall-entries"]),
  workers: Number(args["stall-workers"]),
  routes: (args["stall-routes"] as string).split(",").filter(Boolean),
};

/** B's small reads alone, then while A hammers each heavy route of one large session. */
async function stallRun(backend: string, target: { data?: string; database?: string }): Promise<StallRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "st-bench-stall-"));
  try {
    return await stallRows(backend, target, dir, stallOptions);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function onFreshPg<T>(work: (url: string) => Promise<T>): Promise<T> {
  const database = await freshPgDatabase();
  try {
    return await work(database.url);
  } finally {
    await database.drop();
  }
}

function stallReport(rows: StallRow[]): string[] {
  if (rows.length === 0) return [];
  const mark = (r: StallRow) =>
    r.hammered === "(none)" ? "" : r["B p99 (median)"] <= TARGET_P99_MS ? "met" : "**missed**";
  return [
    "## One tenant must not stall another",
    "",
    `User B sends \`GET /v1/sessions?limit=5\` one at a time (5 ms apart) for ${args["stall-seconds"]} s per run`,
    `(${args["stall-runs"]} run(s); figures are medians over runs), first alone, then while user A loops one heavy`,
    `route with ${args["stall-workers"]} connections on a ${args["stall-entries"]}-entry session (about 350 bytes an`,
    "entry), A in a process of its own. Latencies in ms, seen by the client. The CPU column is the",
    "longest time the server's event loop went without a turn, in main-thread CPU time (bench/loop-probe.ts):",
    "it does not count waits for a core, so it holds on a busy machine where the wall-clock figures do not.",
    "",
    `| backend | A hammers | B p50 | B p99 | target p99 ≤ ${TARGET_P99_MS} ms | B max | A answered | A refused (429) | loop stall max, CPU ms |`,
    "|---|---|---:|---:|---|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.backend} | ${r.hammered} | ${ms(r["B p50 (median)"])} | ${ms(r["B p99 (median)"])} | ${mark(r)} | ${ms(r["B max"])} | ${r["A answered"]} | ${r["A refused (429)"]} | ${ms(r["loop stall max (CPU)"])} |`,
    ),
    "",
    "Whole-session reads: the event loop reads a page per turn and a worker thread builds the answer",
    "(src/server/work/), at most 2 per user (more: 429) and 2 per instance (more: wait).",
    "",
  ];
}

function report(rows: Row[], load: number[], stalls: StallRow[] = []): string {
  const lines = [
    "# Server benchmarks",
    "",
    "Generated by `npm run bench:server` (bench/server-load.ts): autocannon over loopback against a",
    "`sessiontree serve` child process; each request appends one user message (about 150 bytes) to",
    `one of ${args.sessions} sessions, chained under the leaf by the server; rate limit off.`,
    "",
    `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}.`,
    `Load average before the run: ${load.map((l) => l.toFixed(2)).join(", ")}.`,
    ...((load[0] ?? 0) > cpus().length
      ? [
          "**The machine was busy with other work during this run** (load average above the core count):",
          "throughput and latency are lower bounds; the CPU column is the steadier figure.",
        ]
      : []),
    `Run: ${args.connections} connections, ${args.duration} s per backend after ${args.warmup} s of the same load`,
    `(not counted), ${new Date().toISOString()}.`,
    "",
    "| backend | appends/s | p50 ms | p90 ms | p99 ms | max ms | appends | errors | server CPU ms/append |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.backend} | ${r.appendsPerSec} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.max} | ${r.total} | ${r.errors} | ${r.cpuMsPerAppend ?? "n/a"} |`,
    ),
    "",
    "Target on a 2-core machine (autocannon takes one core), 50 connections: ≥ 10,000 appends/s on SQLite",
    "and ≥ 5,000/s on PostgreSQL, p99 ≤ 50 ms: about 0.1 ms of server CPU per append on SQLite.",
    "",
    `The "${HTTP_ALONE}" row is the same load against bench/bare-http.ts: a bare Hono app on`,
    "@hono/node-server (the stack the service uses) that checks the bearer header, parses the body and",
    "answers as an append does, storing nothing. It is the most any append route reaches on this",
    "machine and Node; what a backend's row costs above it is the service's own work.",
    "",
    "Concurrent appends share work: on SQLite the writes queued in one event-loop turn share one",
    "transaction (src/store/sqlite/group-commit.ts), whose search words go into FTS5 at its end in",
    "ascending rowid order, one index segment per transaction (src/store/sqlite/pending-words.ts); on",
    "PostgreSQL writes to different sessions waiting at the same time share one transaction and one",
    "statement per kind of question (src/store/postgres/postgres-group-commit.ts). Concurrent requests'",
    "API-key lookups share one query (src/server/db/key-lookups.ts: on PostgreSQL those asked while one",
    "is on its way, on SQLite those asked in one event-loop turn). Each append is answered only after",
    "its transaction has committed.",
    "",
    "Where an append's server CPU goes (`--cpu-prof <dir>`: a V8 profile of the server child; the",
    "last seconds of it are the measured run). SQLite, 50 connections: the shared transaction is about",
    "60% (its COMMIT and BEGIN a third of that: the WAL frames of about 3.8 pages per append, as 50",
    "appends to 50 sessions touch each session's row, entry, seq-index and search-row-index pages;",
    "the statements of each write the rest; each write's savepoint keeps its sub-journal in memory,",
    "`temp_store = MEMORY`: on a temporary file it cost a pwrite per page, about 7% of the CPU, in",
    "`perf record -g -p <server pid>`), HTTP in and out (node's parser, @hono/node-server,",
    "routing, the response's writev) about 25%, the API-key check 3%, GC 7%. PostgreSQL: the `pg`",
    "client's socket writes and the protocol work about half, the engine's flows 20%, HTTP 20%.",
    "",
    "Server CPU ms/append is the server process's CPU time (from /proc) over the appends it acknowledged:",
    "1000 divided by it is what one otherwise idle core sustains, whatever else ran on the machine.",
    "",
    ...stallReport(stalls),
  ];
  return lines.join("\n");
}

/** Whether `--only` leaves this run in: `http` (the ceiling), `sqlite` or `postgres`. */
function wants(run: "http" | "sqlite" | "postgres"): boolean {
  return args.only === undefined || args.only === run;
}

const load = loadavg();
const rows: Row[] = [];
const stalls: StallRow[] = [];
const dir = mkdtempSync(join(tmpdir(), "st-bench-server-"));
try {
  // The machine's HTTP ceiling first, in the same conditions: what no store can add to.
  if (wants("http")) rows.push(await ceilingRun());
  if (wants("sqlite")) {
    rows.push(await run("sqlite", { data: dir }));
    if (!args["no-stall"]) stalls.push(...(await stallRun("sqlite", { data: join(dir, "stall") })));
  }
  if (wants("postgres")) {
    let stop: (() => void) | undefined;
    if (!process.env.SESSIONTREE_TEST_PG_URL) {
      // scripts/pg.mjs is plain JS without types: import it by URL.
      const pg = await import(pathToFileURL(join(import.meta.dirname, "..", "scripts", "pg.mjs")).href);
      const started = (await pg.startPostgres()) as { url: string; stop: () => void };
      process.env.SESSIONTREE_TEST_PG_URL = started.url;
      stop = started.stop;
    }
    try {
      rows.push(await onFreshPg((database) => run("postgres", { database })));
      if (!args["no-stall"])
        stalls.push(...(await onFreshPg((database) => stallRun("postgres", { database }))));
    } finally {
      stop?.();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.table(rows);
console.table(
  stalls.map((r) => ({
    backend: r.backend,
    "A hammers": r.hammered,
    "B p50": r["B p50 (median)"],
    "B p99": r["B p99 (median)"],
    [`p99 ≤ ${TARGET_P99_MS} ms`]:
      r.hammered === "(none)" ? "" : r["B p99 (median)"] <= TARGET_P99_MS ? "met" : "MISSED",
    "loop stall max (CPU ms)": r["loop stall max (CPU)"],
  })),
);
// `--out -`: no document (npm run bench runs this for its figures alone, with --goals-json).
if (args.out !== "-") {
  writeFileSync(args.out as string, report(rows, load, stalls));
  console.log(`written to ${args.out}`);
}
if (args["goals-json"]) writeFileSync(args["goals-json"], `${JSON.stringify(appendGoals(rows))}\n`);

/** The targets for appends through HTTP (issue 14.5), for `npm run bench`. */
function appendGoals(measured: readonly Row[]): Goal[] {
  const group = `service (HTTP, ${args.connections} clients)`;
  const rate: Record<string, number> = { sqlite: 10_000, postgres: 5_000 };
  const ceiling = measured.find((row) => row.backend === HTTP_ALONE);
  const stores = measured.filter((row) => row !== ceiling);
  const alone = ceiling
    ? `; HTTP alone in the same run: ${ceiling.appendsPerSec.toLocaleString("en-US")}/s, ${ceiling.cpuMsPerAppend?.toFixed(3)} ms`
    : "";
  return stores.flatMap((row) => [
    {
      group,
      what: `${row.backend}: appends per second`,
      value: row.appendsPerSec,
      unit: "appends/s" as const,
      bound: rate[row.backend] ?? 0,
      note:
        row.cpuMsPerAppend === null
          ? undefined
          : `${row.cpuMsPerAppend.toFixed(3)} ms of server CPU per append${alone}`,
    },
    { group, what: `${row.backend}: append p99`, value: row.p99, unit: "ms" as const, bound: TARGET_P99_MS },
  ]);
}

/** Milliseconds to a tenth (a median of two runs is half a sum: 16.950000000000003). */
function ms(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
