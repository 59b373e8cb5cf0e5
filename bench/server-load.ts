// Load test of the HTTP service: appends/s and latency percentiles, on SQLite and on PostgreSQL.
// The server runs in a child process (as `sessiontree serve` does), autocannon drives it over
// loopback for a bounded time, and the results go to docs/server-benchmarks.md.
//   npm run bench:server -- [--duration 10] [--connections 32] [--sessions 64] [--only sqlite|postgres]
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
  },
});

async function startServer(flags: string[]): Promise<{ child: ChildProcess; url: string }> {
  const script = join(import.meta.dirname, "..", "test", "server", "cli-child.ts");
  const argv = ["--import", "tsx", script, "serve", "--port", "0", "--rate-limit", "0", ...flags];
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

function report(rows: Row[], load: number[]): string {
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
  ];
  return lines.join("\n");
}

const load = loadavg();
const rows: Row[] = [];
const dir = mkdtempSync(join(tmpdir(), "st-bench-server-"));
try {
  if (args.only !== "postgres") rows.push(await run("sqlite", { data: dir }));
  if (args.only !== "sqlite") {
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
      rows.push(await run("postgres", { database: database.url }));
    } finally {
      await database.drop();
      stop?.();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.table(rows);
writeFileSync(args.out as string, report(rows, load));
console.log(`written to ${args.out}`);
