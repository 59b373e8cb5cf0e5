/**
 * Wall time of whole commands, the way a user feels them: each run spawns a fresh node on the
 * built `sessiontree`, round after round over every variant (so a busy machine slows them alike),
 * after one untimed round that warms the file cache.
 */
import { spawnSync } from "node:child_process";

export interface TimedCommand {
  label: string;
  argv: readonly string[];
  times: number[];
}

export function command(label: string, argv: readonly string[]): TimedCommand {
  return { label, argv, times: [] };
}

/** Runs every command `rounds` times, interleaved; a command that fails stops the bench. */
export function timeRounds(
  commands: readonly TimedCommand[],
  rounds: number,
  options: { env: NodeJS.ProcessEnv; cwd: string },
): void {
  for (const timed of commands) timeOne(timed, options);
  for (const timed of commands) timed.times.length = 0;
  for (let round = 0; round < rounds; round++) for (const timed of commands) timeOne(timed, options);
}

function timeOne(timed: TimedCommand, options: { env: NodeJS.ProcessEnv; cwd: string }): void {
  const started = process.hrtime.bigint();
  const child = spawnSync(process.execPath, timed.argv, { ...options, stdio: ["ignore", "ignore", "pipe"] });
  timed.times.push(Number(process.hrtime.bigint() - started) / 1e6);
  if (child.status !== 0) throw new Error(`${timed.label} exited ${child.status}: ${child.stderr}`);
}

/** The built command's environment: no source through tsx, no preloads, no colours. */
export function builtEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { SESSIONTREE_FROM_SOURCE: _source, NODE_OPTIONS: _preloads, ...inherited } = process.env;
  return { ...inherited, NO_COLOR: "1", ...extra };
}
