// Load test of the HTTP service: appends/s and latency percentiles, on SQLite and on PostgreSQL.
// The server runs in a child process (as `sessiontree serve` does), autocannon drives it over
// loopback for a bounded time, and the results go to docs/server-benchmarks.md.
// Then the tenant-stall run (issue 16.1): user B lists its sessions one request at a time, alone and
// while user A loops GET …/tree on a 30,000-entry (about 10 MB) session; B's p50/p99 both ways.
//   npm run bench:server -- [--duration 10] [--connections 32] [--sessions 64] [--only sqlite|postgres]
//                           [--stall-seconds 5] [--stall-entries 30000] [--stall-workers 4]
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
import {
  bigSessionJsonl,
  hammer,
  importSession,
  keyFor,
  measureSmallReads,
  type ServeTarget,
  serveChild,
} from "../test/server/tenant-load.js";

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
    connections: { type: "string", default: "16" },
    sessions: { type: "string", default: "64" },
    only: { type: "string" },
    out: { type: "string", default: "docs/server-benchmarks.md" },
    "stall-seconds": { type: "string", default: "5" },
    "stall-entries": { type: "string", default: "30000" },
    "stall-workers": { type: "string", default: "4" },
  },
});

async function startServer(flags: string[]): Promise<{ child: ChildProcess; url: string }> {
  const script = join(import.meta.dirname, "..", "test", "server", "cli-child.ts");
  const argv = [
    "--import",
    "tsx",
    script,
    "serve",
    "--port",
    "0",
    "--rate-limit",
    "0",
    "--no-access-log",
    ...flags,
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
  const { child, url } = await startServer(flags);
  try {
    const client = new SessionTreeClient({ baseUrl: url, token: key });
    const sessions: string[] = [];
    for (let i = 0; i < Number(args.sessions); i++)
      sessions.push((await client.createSession({ cwd: "/bench" })).id);
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
    const cpuBefore = cpuMs(child.pid);
    const result = await autocannon({
      url,
      connections: Number(args.connections),
      duration: Number(args.duration),
      requests: [{ setupRequest }],
    });
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

interface StallRow {
  backend: string;
  "B alone p50": number;
  "B alone p99": number;
  "B with A p50": number;
  "B with A p99": number;
  "B with A max": number;
  "A trees answered": number;
  "A refused (429)": number;
}

/** B's small reads alone, then while A hammers the whole tree of one large session. */
async function stallRun(backend: string, target: ServeTarget): Promise<StallRow> {
  const keyA = await keyFor(target, "tenant-a");
  const keyB = await keyFor(target, "tenant-b");
  const server = await serveChild(target, ["--rate-limit", "0"]);
  try {
    const ms = Number(args["stall-seconds"]) * 1000;
    const session = await importSession(server.url, keyA, bigSessionJsonl(Number(args["stall-entries"])));
    const alone = await measureSmallReads(server.url, keyB, ms);
    const a = hammer(server.url, keyA, `/v1/sessions/${session}/tree`, Number(args["stall-workers"]));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const loaded = await measureSmallReads(server.url, keyB, ms);
    const statuses = await a.stop();
    return {
      backend,
      "B alone p50": alone.p50,
      "B alone p99": alone.p99,
      "B with A p50": loaded.p50,
      "B with A p99": loaded.p99,
      "B with A max": loaded.max,
      "A trees answered": statuses[200] ?? 0,
      "A refused (429)": statuses[429] ?? 0,
    };
  } finally {
    await server.stop();
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
  return [
    "## One tenant must not stall another",
    "",
    `User B sends \`GET /v1/sessions?limit=5\` one at a time (5 ms apart) for ${args["stall-seconds"]} s, first alone,`,
    `then while user A loops \`GET /v1/sessions/{id}/tree\` with ${args["stall-workers"]} connections on a`,
    `${args["stall-entries"]}-entry session (about 350 bytes an entry). Latencies in ms, seen by the client.`,
    "",
    "| backend | B alone p50 | B alone p99 | B with A p50 | B with A p99 | B with A max | A trees answered | A refused (429) |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.backend} | ${r["B alone p50"]} | ${r["B alone p99"]} | ${r["B with A p50"]} | ${r["B with A p99"]} | ${r["B with A max"]} | ${r["A trees answered"]} | ${r["A refused (429)"]} |`,
    ),
    "",
    "Target: B's p99 ≤ 50 ms while A hammers. Whole-session reads run in slices of a few ms that give",
    "the event loop back (src/server/work/), at most 2 per user (more: 429) and 2 per instance (more: wait).",
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
    `Run: ${args.connections} connections, ${args.duration} s per backend, ${new Date().toISOString()}.`,
    "",
    "| backend | appends/s | p50 ms | p90 ms | p99 ms | max ms | appends | errors | server CPU ms/append |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.backend} | ${r.appendsPerSec} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.max} | ${r.total} | ${r.errors} | ${r.cpuMsPerAppend ?? "n/a"} |`,
    ),
    "",
    "Target on a 2-core machine: ≥ 3,000 appends/s with p99 < 50 ms on SQLite.",
    "",
    "Server CPU ms/append is the server process's CPU time (from /proc) over the appends it acknowledged:",
    "1000 divided by it is what one otherwise idle core sustains, whatever else ran on the machine.",
    "",
    ...stallReport(stalls),
  ];
  return lines.join("\n");
}

const load = loadavg();
const rows: Row[] = [];
const stalls: StallRow[] = [];
const dir = mkdtempSync(join(tmpdir(), "st-bench-server-"));
try {
  if (args.only !== "postgres") {
    rows.push(await run("sqlite", { data: dir }));
    stalls.push(await stallRun("sqlite", { data: join(dir, "stall") }));
  }
  if (args.only !== "sqlite") {
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
      stalls.push(await onFreshPg((database) => stallRun("postgres", { database })));
    } finally {
      stop?.();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.table(rows);
console.table(stalls);
writeFileSync(args.out as string, report(rows, load, stalls));
console.log(`written to ${args.out}`);
