#!/usr/bin/env node
// Times each test file alone, one after another, to decide its stage in scripts/test-stages.mjs:
// a unit file should take well under 5 s alone. Run it on an otherwise idle machine (the times are
// wall clock):
//   node scripts/time-tests.mjs [filter…]
// It starts its own PostgreSQL cluster unless SESSIONTREE_TEST_PG_URL names one. Prints slowest first.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { startPostgres } from "./pg.mjs";
import { classify } from "./test-stages.mjs";

const UNIT_BUDGET_S = 5;

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith(".test.ts") ? [path] : [];
  });
}

process.chdir(fileURLToPath(new URL("..", import.meta.url)));
const filters = process.argv.slice(2);
const files = findTests("test")
  .map((f) => relative(".", f).split(sep).join("/"))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
const { stages } = classify(files);
const stageOf = new Map(Object.entries(stages).flatMap(([stage, list]) => list.map((f) => [f, stage])));

const env = { ...process.env };
const pg = env.SESSIONTREE_TEST_PG_URL ? undefined : await startPostgres();
if (pg) env.SESSIONTREE_TEST_PG_URL = pg.url;
const rows = [];
try {
  for (const file of files) {
    const started = process.hrtime.bigint();
    const { status } = spawnSync(process.execPath, ["--import", "tsx", "--test", file], {
      env,
      stdio: "ignore",
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    rows.push({ file, seconds, status, stage: stageOf.get(file) ?? "none" });
    console.error(`${seconds.toFixed(1).padStart(7)} s  ${file}`);
  }
} finally {
  pg?.stop();
}

console.log("\n   wall  stage  file");
for (const row of rows.sort((a, b) => b.seconds - a.seconds)) {
  const flags = [
    row.status === 0 ? "" : `exit ${row.status}`,
    row.stage === "unit" && row.seconds > UNIT_BUDGET_S ? `over the unit budget (${UNIT_BUDGET_S} s)` : "",
  ].filter(Boolean);
  const note = flags.length > 0 ? `  <- ${flags.join(", ")}` : "";
  console.log(`${row.seconds.toFixed(1).padStart(7)}  ${row.stage.padEnd(5)}  ${row.file}${note}`);
}
