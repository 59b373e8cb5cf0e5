#!/usr/bin/env node
// The test command: every test/**/*.test.ts under node's test runner (via tsx), in two stages
// (scripts/test-stages.mjs says which file runs where):
//   unit  quick, in-process tests with a short timeout; runs first, and a failure ends the run
//   e2e   processes, browsers, tmux, crash and fuzz harnesses, long concurrency; the long timeout
// Both stages share one throwaway PostgreSQL cluster (unless SESSIONTREE_TEST_PG_URL names one) and
// one S3-compatible server, s3rver (unless SESSIONTREE_TEST_S3_ENDPOINT names one).
//   node scripts/test.mjs [--stage unit|e2e] [filter…]
// A filter keeps the files whose path contains it: `npm test -- store`. A run that selects no file,
// or a stage that reports zero tests, is a failure, never a success.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { startPostgres } from "./pg.mjs";
import { startS3 } from "./s3.mjs";
import { classify, STAGES } from "./test-stages.mjs";

function findTests(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (name.endsWith(".test.ts")) found.push(path);
  }
  return found;
}

function parseArgs(argv) {
  const filters = [];
  let only;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--stage") only = argv[++i];
    else if (arg.startsWith("--stage=")) only = arg.slice("--stage=".length);
    else filters.push(arg);
  }
  if (only !== undefined && !(only in STAGES)) {
    console.error(`Unknown stage "${only}": one of ${Object.keys(STAGES).join(", ")}.`);
    process.exit(2);
  }
  return { only, filters };
}

/** Runs one stage's files; returns the runner's exit status and its totals. */
function runStage(name, files, env) {
  const summaryDir = mkdtempSync(join(tmpdir(), "sessiontree-test-summary-"));
  const summaryFile = join(summaryDir, "summary.json");
  // The usual reporter for people (spec on a terminal, TAP in CI, as node picks by default), plus
  // scripts/test-reporter.mjs writing the totals to a file for the checks below.
  const visible = process.stdout.isTTY ? "spec" : "tap";
  const args = [
    "--import",
    "tsx",
    "--test",
    "--test-concurrency=2",
    `--test-timeout=${STAGES[name].timeoutMs}`,
    `--test-reporter=${visible}`,
    "--test-reporter-destination=stdout",
    "--test-reporter=./scripts/test-reporter.mjs",
    `--test-reporter-destination=${summaryFile}`,
    ...files,
  ];
  const started = Date.now();
  const status = spawnSync(process.execPath, args, { stdio: "inherit", env }).status ?? 1;
  let totals = {};
  try {
    totals = JSON.parse(readFileSync(summaryFile, "utf8"));
  } catch {
    // No summary: the runner died before its end; the status says so.
  }
  rmSync(summaryDir, { recursive: true, force: true });
  return { status, totals, seconds: Math.round((Date.now() - started) / 100) / 10 };
}

// Paths below (test/, the reporter, what filters match) are from the repository root.
process.chdir(fileURLToPath(new URL("..", import.meta.url)));
const { only, filters } = parseArgs(process.argv.slice(2));
const all = findTests("test")
  .map((f) => relative(".", f).split(sep).join("/"))
  .sort();
const { stages, problems } = classify(all);
if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}

const order = Object.keys(STAGES).filter((name) => only === undefined || name === only);
const selected = order.map((name) => ({
  name,
  files: stages[name].filter((f) => filters.length === 0 || filters.some((x) => f.includes(x))),
}));
if (selected.every((stage) => stage.files.length === 0)) {
  console.error("No test files matched: refusing to report success on zero tests.");
  process.exit(1);
}

// Ctrl-C reaches the runner too (one process group): outliving it is what lets the cluster stop.
process.on("SIGINT", () => {});
const env = { ...process.env };
// Caches (sidecar indexes, listing catalogs) go to a folder of the run's own, never the user's
// ~/.cache/sessiontree: CLI children inherit this, and os.homedir() ignores a test's HOME.
const cacheDir = env.SESSIONTREE_CACHE_DIR
  ? undefined
  : mkdtempSync(join(tmpdir(), "sessiontree-test-cache-"));
if (cacheDir) env.SESSIONTREE_CACHE_DIR = cacheDir;
let pg;
let s3;
let exitCode = 0;
const lines = [];
try {
  if (!env.SESSIONTREE_TEST_PG_URL) {
    pg = await startPostgres();
    env.SESSIONTREE_TEST_PG_URL = pg.url;
  }
  if (!env.SESSIONTREE_TEST_S3_ENDPOINT) {
    s3 = await startS3();
    env.SESSIONTREE_TEST_S3_ENDPOINT = s3.endpoint;
  }
  for (const { name, files } of selected) {
    if (files.length === 0) {
      lines.push(`${name}: no file matched, skipped`);
      continue;
    }
    console.log(`\n== ${name} stage: ${files.length} files ==\n`);
    const { status, totals, seconds } = runStage(name, files, env);
    const extra = ["cancelled", "skipped", "todo"]
      .filter((k) => totals[k] > 0)
      .map((k) => `, ${totals[k]} ${k}`);
    const counts = `${totals.tests ?? "?"} tests, ${totals.pass ?? "?"} passed, ${totals.fail ?? "?"} failed${extra.join("")}`;
    lines.push(`${name}: ${files.length} files, ${counts}, ${seconds} s`);
    for (const file of totals.failedFiles ?? []) lines.push(`  failed: ${relative(".", file)}`);
    if (status !== 0) {
      exitCode = status;
      const rest = selected.slice(selected.findIndex((s) => s.name === name) + 1);
      if (rest.some((s) => s.files.length > 0)) lines.push(`${name} failed: later stages not run`);
      break;
    }
    if (!(totals.tests > 0)) {
      lines.push(`${name}: zero tests ran: refusing to report success`);
      exitCode = 1;
      break;
    }
  }
} finally {
  pg?.stop();
  s3?.stop();
  if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
}
console.log(`\n${lines.join("\n")}`);
process.exit(exitCode);
