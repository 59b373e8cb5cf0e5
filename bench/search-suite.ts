/**
 * The search and stats part of `npm run bench` (issue 18: "a query over 2,000 sessions / 1M
 * entries answers in ≤ 100 ms warm"): runs bench/search.ts (local files: corpus, index, warm
 * queries), bench/search-stores.ts (SQLite and PostgreSQL) and `sessiontree stats --all` over the
 * local corpus, each in a child process, and returns their reports as Markdown. The corpora are
 * generated once under `dir` (the bench's temp folder), or under SESSIONTREE_BENCH_SEARCH_DIR when
 * set, where they stay and the next run reuses them (the local index and PostgreSQL's are built
 * again each run; the SQLite store database is reused as it is). PostgreSQL is the one
 * SESSIONTREE_TEST_PG_URL names, or a throwaway cluster (scripts/pg.mjs). Takes long at full size
 * (about 30 minutes on a loaded 2-core machine, most of it building the corpora and indexes):
 * `npm run bench -- --skip-search` leaves it out and keeps the last figures in the document;
 * `npm run bench:search-suite` measures it alone (bench/search-doc.ts puts it in place).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";

export interface SearchSuiteOptions {
  quick: boolean;
  log: (message: string) => void;
}

export interface SearchSuiteResult {
  /** One line per target, ✅ or ❌, for the targets list. */
  targets: string[];
  /** The section for docs/benchmarks.md. */
  markdown: string[];
}

const TARGET_MS = 100;

function run(args: string[], env: NodeJS.ProcessEnv = process.env): { output: string; ms: number } {
  const started = performance.now();
  const child = spawnSync(process.execPath, ["--import", "tsx", ...args], {
    encoding: "utf8",
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  const output = `${child.stdout ?? ""}${child.status === 0 ? "" : `\n(exit ${child.status}) ${child.stderr ?? ""}`}`;
  // Progress lines (`  300/2000 sessions`) are for a terminal.
  const report = output.replace(/[^\n]*\r/g, "").replace(/^\s*\d+\/\d+ sessions\s*$\n?/gm, "");
  return { output: report.trim(), ms: performance.now() - started };
}

/** `median X ms, p95 Y ms` after `marker` in a report, or null. */
function figures(output: string, marker: RegExp): { median: number; p95: number } | null {
  const line = output.split("\n").find((text) => marker.test(text));
  const found = line && /median ([\d.]+) ms, p95 ([\d.]+) ms/.exec(line);
  return found ? { median: Number(found[1]), p95: Number(found[2]) } : null;
}

function target(label: string, result: { median: number; p95: number } | null): string {
  if (!result) return `- ❌ search, ${label}: no figure (see the report below)`;
  const ok = result.median <= TARGET_MS;
  return `- ${ok ? "✅" : "❌"} search, ${label}: warm median ${result.median.toFixed(1)} ms, p95 ${result.p95.toFixed(1)} ms (target ≤ ${TARGET_MS} ms)`;
}

async function postgresUrl(): Promise<{ url: string | null; stop: () => void }> {
  if (process.env.SESSIONTREE_TEST_PG_URL)
    return { url: process.env.SESSIONTREE_TEST_PG_URL, stop: () => {} };
  try {
    // @ts-expect-error: a plain ES module without types
    const { startPostgres } = (await import("../scripts/pg.mjs")) as {
      startPostgres: () => Promise<{ url: string; stop: () => void }>;
    };
    return await startPostgres();
  } catch {
    return { url: null, stop: () => {} };
  }
}

export async function measureSearchSuite(
  dir: string,
  options: SearchSuiteOptions,
): Promise<SearchSuiteResult> {
  const sessions = options.quick ? 100 : 2000;
  const entries = options.quick ? 20_000 : 1_000_000;
  const size = ["--sessions", String(sessions)];
  dir = process.env.SESSIONTREE_BENCH_SEARCH_DIR ?? dir;
  mkdirSync(dir, { recursive: true });

  const local = run([
    "bench/search.ts",
    ...size,
    "--entries",
    String(entries),
    "--runs",
    "3",
    "--dir",
    join(dir, "local"),
    "--keep",
  ]);
  options.log(`local search done in ${(local.ms / 1000).toFixed(0)} s`);

  const stats = run(
    ["bin/sessiontree.js", "--root", join(dir, "local", "root"), "--json", "stats", "--all"],
    {
      ...process.env,
      SESSIONTREE_FROM_SOURCE: "1",
      SESSIONTREE_CACHE_DIR: join(dir, "local", "cache"),
    },
  );
  const statsLine = `\`sessiontree stats --all --json\` over the same ${sessions.toLocaleString("en-US")} sessions: ${(stats.ms / 1000).toFixed(1)} s, process start included${stats.output.includes("(exit") ? ` (failed: ${stats.output.slice(-300)})` : ""}`;
  options.log(`stats done in ${(stats.ms / 1000).toFixed(1)} s`);

  const pg = await postgresUrl();
  let stores: { output: string; ms: number };
  try {
    stores = run([
      "bench/search-stores.ts",
      ...size,
      "--per",
      String(Math.round(entries / sessions)),
      "--rounds",
      "3",
      "--sqlite-db",
      join(dir, "stores.db"),
      ...(pg.url ? ["--pg", pg.url] : []),
    ]);
  } finally {
    pg.stop();
  }
  options.log(`store search done in ${(stores.ms / 1000).toFixed(0)} s`);

  const scope = `${sessions.toLocaleString("en-US")} sessions / ${entries.toLocaleString("en-US")} entries`;
  return {
    targets: [
      target(`local files, ${scope}`, figures(local.output, /^all queries:/)),
      target(`SQLite store, ${scope}`, figures(stores.output.split(/^sqlite:/m)[1] ?? "", /warm query:/)),
      target(
        `PostgreSQL store, ${scope}`,
        figures(stores.output.split(/^postgres:/m)[1] ?? "", /warm query:/),
      ),
    ],
    markdown: [
      `Measured on ${new Date().toISOString().slice(0, 10)} (load average ${loadavg()
        .map((n) => n.toFixed(1))
        .join(
          ", ",
        )} at the end) by bench/search-suite.ts: bench/search.ts (local files) and bench/search-stores.ts (stores) over ${scope}, warm queries; then stats.`,
      "",
      "```",
      local.output,
      "```",
      "",
      "```",
      stores.output,
      "```",
      "",
      `- ${statsLine}`,
    ],
  };
}
