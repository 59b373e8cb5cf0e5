import { createRequire } from "node:module";
import type * as CliProgress from "cli-progress";
import pc from "picocolors";

export type Colors = ReturnType<typeof pc.createColors>;

/**
 * Where a command's output goes. Commands never touch `process.stdout` directly, so `main(argv, io)`
 * can run in-process (tests capture everything) and colours follow the real streams.
 */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** stdout is a terminal: colours and layout for people. */
  stdoutIsTTY: boolean;
  /** stderr is a terminal: progress bars. */
  stderrIsTTY: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Terminal width for truncation ($COLUMNS or 100 when not a terminal). */
  columns: number;
}

export function processIO(): CliIO {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
    columns: process.stdout.columns || Number(process.env.COLUMNS) || 100,
  };
}

/** Colours only for a terminal, never with NO_COLOR set (any value, per no-color.org); FORCE_COLOR wins. */
export function colorsFor(io: CliIO): Colors {
  const force = io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== "0";
  const enabled = force || (io.stdoutIsTTY && !("NO_COLOR" in io.env) && io.env.TERM !== "dumb");
  return pc.createColors(enabled);
}

/** A progress bar on stderr when it is a terminal and the work is long enough to be worth one. */
export interface Progress {
  tick(n?: number): void;
  stop(): void;
}

const SILENT: Progress = { tick: () => {}, stop: () => {} };

export function startProgress(io: CliIO, label: string, total: number, minTotal = 50): Progress {
  if (!io.stderrIsTTY || total < minTotal) return SILENT;
  // Required only when a bar is shown: cli-progress and its width tables cost every command time.
  const { SingleBar } = createRequire(import.meta.url)("cli-progress") as typeof CliProgress;
  const bar = new SingleBar({
    format: `${label} [{bar}] {value}/{total}`,
    stream: process.stderr,
    clearOnComplete: true,
    hideCursor: true,
  });
  bar.start(total, 0);
  return { tick: (n = 1) => bar.increment(n), stop: () => bar.stop() };
}

/** Cuts text to one line of at most `width` characters. */
export function oneLine(text: string, width: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= width) return flat;
  return `${flat.slice(0, Math.max(0, width - 1))}…`;
}
