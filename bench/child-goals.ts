/**
 * Benches that run on their own (a browser, a server under load) take part in `npm run bench` as
 * child processes: each is started with `--goals-json FILE` and writes the `Goal[]` it measured
 * there. A child that fails is reported as a failed goal, not as a crash of the whole run.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Goal } from "./goals.js";

export interface ChildBench {
  /** Named in the targets list when the child fails. */
  group: string;
  script: string;
  args: readonly string[];
}

export function childGoals(bench: ChildBench, dir: string, log: (message: string) => void): Goal[] {
  const out = join(dir, `${bench.script.replace(/\W+/g, "-")}.goals.json`);
  const child = spawnSync(
    process.execPath,
    ["--import", "tsx", bench.script, ...bench.args, "--goals-json", out],
    { stdio: ["ignore", "inherit", "inherit"] },
  );
  if (child.status === 0 && existsSync(out)) return JSON.parse(readFileSync(out, "utf8")) as Goal[];
  log(`${bench.script} failed (exit ${child.status ?? child.signal}): its targets are marked not met`);
  return [
    { group: bench.group, what: `${bench.script} did not finish`, value: Number.NaN, unit: "ms", bound: 0 },
  ];
}
