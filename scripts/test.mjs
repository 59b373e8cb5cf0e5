#!/usr/bin/env node
// The test command: every test/**/*.test.ts under node's test runner (via tsx), with a real,
// throwaway PostgreSQL cluster for the suites that need one (unless SESSIONTREE_TEST_PG_URL names one).
// Extra arguments are file filters: `npm test -- store` runs the files whose path contains "store".
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { startPostgres } from "./pg.mjs";

function findTests(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (name.endsWith(".test.ts")) found.push(path);
  }
  return found;
}

const filters = process.argv.slice(2);
const files = findTests("test")
  .map((f) => relative(".", f))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error("No test files matched: refusing to report success on zero tests.");
  process.exit(1);
}

const env = { ...process.env };
let pg;
if (!env.SESSIONTREE_TEST_PG_URL) {
  pg = await startPostgres();
  env.SESSIONTREE_TEST_PG_URL = pg.url;
}
let status = 1;
try {
  const args = ["--import", "tsx", "--test", "--test-concurrency=2", "--test-timeout=600000", ...files];
  status = spawnSync(process.execPath, args, { stdio: "inherit", env }).status ?? 1;
} finally {
  pg?.stop();
}
process.exit(status);
