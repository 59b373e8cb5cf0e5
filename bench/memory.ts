import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { GeneratedSession } from "./generate.js";
import type { Row } from "./results.js";
import { median } from "./stats.js";

const CHILD = fileURLToPath(new URL("./memory-child.ts", import.meta.url));

/** Peak RSS in MiB of a fresh process opening `file` one way (median of `runs` processes). */
export function peakRss(mode: string, file: string, runs: number): number {
  const values: number[] = [];
  for (let i = 0; i < runs; i++) {
    const child = spawnSync(process.execPath, ["--import", "tsx", CHILD, mode, file], {
      encoding: "utf8",
      maxBuffer: 1 << 20,
    });
    if (child.status !== 0) throw new Error(`memory child ${mode} failed: ${child.stderr}`);
    const lastLine = child.stdout.trim().split("\n").pop() as string;
    values.push((JSON.parse(lastLine) as { maxRssKiB: number }).maxRssKiB / 1024);
  }
  return median(values);
}

/** Peak memory of open + context, pi against ours, each in its own process. */
export function measureMemory(
  session: GeneratedSession,
  label: string,
  runs: number,
  baseline: { ours: number; pi: number },
): Row[] {
  const group = `peak memory, open + context (${label})`;
  const pi = peakRss("pi", session.path, runs);
  const row = (what: string, mode: string): Row => {
    const ours = peakRss(mode, session.path, runs);
    const above = `above each one's module baseline: ours ${(ours - baseline.ours).toFixed(0)} MiB, pi ${(pi - baseline.pi).toFixed(0)} MiB`;
    return { group, what, unit: "MiB", ours, pi, note: `maxRSS of a fresh process; ${above}` };
  };
  return [
    row("SessionManager.open + context, first open (no index)", "cold"),
    row("SessionManager.open + context, index present", "warm"),
    row("full read of every line + context", "full"),
  ];
}

/** Peak memory of a process that only loads the modules: ours, and pi's. */
export function baselineRss(runs: number): { ours: number; pi: number } {
  return { ours: peakRss("baseline", "-", runs), pi: peakRss("baseline-pi", "-", runs) };
}
