import { createRequire } from "node:module";
import type * as CliProgress from "cli-progress";
import pc from "picocolors";
import { terminalSafe } from "./terminal-text.js";

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
  quietOnClosedPipe(process.stdout);
  // process.stderr is made on first use (a write, or asking whether it is a terminal): a command
  // that never does builds no stream for it (a pipe's is a socket: node:net, milliseconds a run).
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => {
      quietOnClosedPipe(process.stderr);
      process.stderr.write(text);
    },
    stdoutIsTTY: process.stdout.isTTY === true,
    get stderrIsTTY() {
      return process.stderr.isTTY === true;
    },
    env: process.env,
    cwd: process.cwd(),
    columns: process.stdout.columns || Number(process.env.COLUMNS) || 100,
  };
}

const guarded = new WeakSet<NodeJS.WriteStream>();

/**
 * `sessiontree tree x 2>&1 | head -2`: the reader has seen enough and closed the pipe. That ends
 * the output, it is no error (as `git log | head`): exit at once, quietly, with the status the
 * command has set so far (0 while it was still printing).
 */
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });
}

/**
 * Whether output gets colours. FORCE_COLOR, when set, decides, as in Node (`tty.getColorDepth`)
 * and chalk's supports-color: `0` or `false` turns colours off, any other value (empty, 1, 2, 3,
 * true) on, even on a pipe. Otherwise NO_COLOR set to a non-empty value turns them off
 * (no-color.org); otherwise colours only on a terminal whose TERM is not `dumb`.
 */
export function colorEnabled(env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
  if (env.NO_COLOR) return false;
  return isTTY && env.TERM !== "dumb";
}

/** The colours of stdout (see `colorEnabled`). */
export function colorsFor(io: CliIO): Colors {
  return pc.createColors(colorEnabled(io.env, io.stdoutIsTTY));
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

/** Cuts text to one line of at most `width` characters, control characters shown (`terminalSafe`). */
export function oneLine(text: string, width: number): string {
  return cutFromHead(text, width) ?? cutWhole(text, width);
}

function cutWhole(text: string, width: number): string {
  const flat = terminalSafe(text.replace(/\s+/g, " ").trim());
  if (flat.length <= width) return flat;
  return `${flat.slice(0, Math.max(0, width - 1))}…`;
}

/**
 * `cutWhole` of a long text (a tool result of megabytes, in a tree line) from its head alone:
 * flattening the whole text to keep a terminal's width of it is most of `tree`'s drawing time.
 * When the flattened head still has more than `width` characters before any trailing blanks, the
 * whole text's line is `width - 1` of them and the ellipsis, exactly; null when it cannot tell.
 */
function cutFromHead(text: string, width: number): string | null {
  const headLength = 4 * width + 64;
  if (width < 1 || text.length <= headLength) return null;
  const head = terminalSafe(text.slice(0, headLength).replace(/\s+/g, " ").trim());
  if (head.length <= width) return null;
  return `${head.slice(0, width - 1)}…`;
}
