/**
 * Runs fuzz cases in a worker thread so the test's main thread can watch the clock: a case that
 * hangs (a loop that never ends) is caught by the watchdog there, which terminates this thread.
 * Messages: `start` before each case, `done` after it, `fail` for a broken promise, then `end`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import { Random } from "../../support/random.js";

import { checkCase, originalLines } from "./check.js";
import { baseSessions, mutate } from "./mutate.js";

const { seed, cases, dir } = workerData as { seed: number; cases: number; dir: string };
const port = parentPort;
if (!port) throw new Error("fuzz-worker runs as a worker thread");

const bases = baseSessions();
const originals = bases.map(originalLines);
const path = join(dir, "case.jsonl");
const totals = {
  opened: 0,
  refused: 0,
  issues: 0,
  intactChecked: 0,
  maxCaseMs: 0,
  mutations: {} as Record<string, number>,
};

for (let i = 0; i < cases; i++) {
  // Each case has its own seed, so a failure reproduces alone: new Random(seed * 100_000 + i).
  const rng = new Random(seed * 100_000 + i);
  const baseIndex = rng.between(0, bases.length - 1);
  const { bytes, applied } = mutate(bases[baseIndex] as Buffer, rng);
  for (const name of applied) totals.mutations[name] = (totals.mutations[name] ?? 0) + 1;
  port.postMessage({ type: "start", i });
  const started = performance.now();
  try {
    const outcome = checkCase(path, bytes, originals[baseIndex] as Map<string, never>);
    if (outcome.opened) totals.opened++;
    else totals.refused++;
    totals.issues += outcome.issues;
    totals.intactChecked += outcome.intactChecked;
  } catch (error) {
    const saved = join(dir, `failed-case-${i}.jsonl`);
    writeFileSync(saved, bytes);
    port.postMessage({ type: "fail", i, applied, saved, message: (error as Error).stack ?? String(error) });
  }
  const ms = performance.now() - started;
  totals.maxCaseMs = Math.max(totals.maxCaseMs, ms);
  port.postMessage({ type: "done", i, ms });
}
port.postMessage({ type: "end", totals });
