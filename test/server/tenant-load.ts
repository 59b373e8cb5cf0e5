// One tenant hammering the heaviest whole-session read while another lists its sessions: the
// driver behind test/server/tenant-stall.e2e.test.ts and `npm run bench:server`. The server runs
// in a child process (`sessiontree serve`), so the load generator's own parsing never counts as
// server latency.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { createApiKey, openServiceDb } from "../../src/server/index.js";

export interface ServeTarget {
  data?: string;
  database?: string;
}

export interface ServedChild {
  child: ChildProcess;
  url: string;
  /** Settles with the exit code when the process ends (null: killed by a signal). */
  exited: Promise<number | null>;
  /** SIGTERM (unless it has ended), then its exit code. */
  stop(): Promise<number | null>;
}

/** How a child is started besides its serve flags: modules to preload (`--import`), extra environment. */
export interface ChildSetup {
  preload?: string[];
  env?: Record<string, string>;
}

/** `sessiontree serve` in a child process on a free port; resolves with its URL. */
export async function serveChild(
  target: ServeTarget,
  flags: string[] = [],
  setup: ChildSetup = {},
): Promise<ServedChild> {
  const script = join(import.meta.dirname, "cli-child.ts");
  const where = target.database ? ["--database", target.database] : ["--data", target.data as string];
  const preload = (setup.preload ?? []).flatMap((module) => ["--import", module]);
  const serve = [script, "serve", "--port", "0", "--no-access-log", ...where, ...flags];
  const argv = ["--import", "tsx", ...preload, ...serve];
  const env = { ...process.env, ...setup.env };
  const child = spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "inherit"], env });
  child.stdout?.setEncoding("utf8");
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
    child.stdout?.on("data", (chunk: string) => {
      out += chunk;
      const match = /listening on (https?:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    url,
    exited,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

/** A new API key for `user`, written to the target's database before a server starts. */
export async function keyFor(target: ServeTarget, user: string): Promise<string> {
  const db = await openServiceDb(target);
  try {
    return (await createApiKey(db, user, "tenant-load")).key;
  } finally {
    await db.close();
  }
}

/** A pi v3 JSONL file of `count` chained messages of about `bytesPerEntry` bytes each. */
export function bigSessionJsonl(count: number, bytesPerEntry = 350): string {
  const start = Date.parse("2026-01-01T00:00:00.000Z");
  const filler = "x".repeat(Math.max(0, bytesPerEntry - 230));
  const header = {
    type: "session",
    version: 3,
    id: "big",
    timestamp: new Date(start).toISOString(),
    cwd: "/w",
  };
  const lines = [JSON.stringify(header)];
  for (let i = 0; i < count; i++) {
    const timestamp = new Date(start + i * 1000).toISOString();
    const message = {
      role: i % 2 ? "assistant" : "user",
      content: `message ${i} ${filler}`,
      timestamp: start + i,
    };
    const entry = { type: "message", id: `e${i}`, parentId: i ? `e${i - 1}` : null, timestamp, message };
    lines.push(JSON.stringify(entry));
  }
  return `${lines.join("\n")}\n`;
}

/** Imports `jsonl` as a new session of the key's user; resolves with its id. */
export async function importSession(url: string, key: string, jsonl: string): Promise<string> {
  const response = await fetch(`${url}/v1/sessions/import`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/x-ndjson" },
    body: jsonl,
  });
  const body = (await response.json()) as { id?: string };
  if (response.status !== 201 || !body.id) throw new Error(`import: ${response.status}`);
  return body.id;
}

export interface Latencies {
  count: number;
  p50: number;
  p99: number;
  max: number;
  /** Answers other than 200. */
  failures: number;
}

/** B: one request at a time, for `durationMs`; the latency of each, in ms. */
export async function measureSmallReads(url: string, key: string, durationMs: number): Promise<Latencies> {
  const times: number[] = [];
  let failures = 0;
  const end = performance.now() + durationMs;
  while (performance.now() < end) {
    const start = performance.now();
    const response = await fetch(`${url}/v1/sessions?limit=5`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await response.arrayBuffer();
    times.push(performance.now() - start);
    if (response.status !== 200) failures++;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => round(times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0);
  return { count: times.length, p50: at(0.5), p99: at(0.99), max: round(times.at(-1) ?? 0), failures };
}

export interface Hammer {
  /** Stops after the requests in flight; resolves with A's answers by status. */
  stop(): Promise<Record<number, number>>;
}

/** A: `workers` loops of GET `path` (the heaviest whole-session read), as fast as answers come. */
export function hammer(url: string, key: string, path: string, workers: number): Hammer {
  const statuses: Record<number, number> = {};
  let running = true;
  const loop = async () => {
    while (running) {
      const response = await fetch(url + path, { headers: { authorization: `Bearer ${key}` } });
      await response.arrayBuffer();
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      // A refused read (429) comes back at once: wait as Retry-After asks, a little.
      if (response.status === 429) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const loops = Array.from({ length: workers }, loop);
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return statuses;
    },
  };
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/**
 * `hammer` in a child process (tenant-hammer.ts): A's answers, up to 10 MB each, are received
 * and counted there, so they never delay B's client in this process. Resolves once A runs.
 */
export async function hammerChild(url: string, key: string, path: string, workers: number): Promise<Hammer> {
  const script = join(import.meta.dirname, "tenant-hammer.ts");
  const child = spawn(process.execPath, ["--import", "tsx", script, url, key, path, String(workers)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  child.stdout?.setEncoding("utf8");
  let out = "";
  child.stdout?.on("data", (chunk: string) => {
    out += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    void exited.then((code) => reject(new Error(`hammer exited with ${code}`)));
    const wait = () => (out.includes("ready\n") ? resolve() : setTimeout(wait, 20));
    wait();
  });
  return {
    async stop() {
      child.kill("SIGTERM");
      await exited;
      return JSON.parse(out.split("\n").filter(Boolean).at(-1) as string) as Record<number, number>;
    },
  };
}
