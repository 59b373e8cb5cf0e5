import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CustomEntry, SessionEntry } from "../../src/core/entry.js";
import { SessionFile } from "../../src/file/session-file.js";
import { entryMaker } from "../support/messages.js";
import { Random } from "../support/random.js";
import { quarantinesAt } from "./support.js";

/**
 * The crash harness: children append to a session file with durability "fsync" and acknowledge
 * each entry on stdout after the append returned; the parent SIGKILLs them at random moments
 * (after a random delay, or right as a large batch goes out) and after every kill checks that the
 * file opens without being written to, that every acknowledged entry is there and whole, that
 * nothing but a torn tail is wrong with it, and, often, that its own next append works and moved
 * the torn bytes aside byte-for-byte. The next child is started while the current one runs, so its
 * start-up cost overlaps the cycle.
 */
export interface CrashRunOptions {
  dir: string;
  kills: number;
  /** Independent files, each with its own chain of children, run side by side. @default 2 */
  lanes?: number;
  seed: number;
  /** Kills per session file before starting a new one (bounds the file size). @default 25 */
  killsPerFile?: number;
  onKill?: (stats: CrashStats) => void;
}

export interface CrashStats {
  kills: number;
  /** Kills sent right after the child announced a write (likely mid-write or mid-fsync). */
  killsAtWrite: number;
  acked: number;
  ackedBytes: number;
  /** Kills after which the file ended in an unterminated line. */
  tornTails: number;
  /** Torn tails later found in a quarantine file, byte-for-byte. */
  tornTailsQuarantined: number;
  parentAppends: number;
  files: number;
  /** Slowest open after a kill, and slowest open + append (the recovery), in ms. */
  maxOpenMs: number;
  maxRecoverMs: number;
}

const CHILD = fileURLToPath(new URL("./fixtures/crash-child.ts", import.meta.url));

export async function runCrashCycles(options: CrashRunOptions): Promise<CrashStats> {
  const stats: CrashStats = {
    kills: 0,
    killsAtWrite: 0,
    acked: 0,
    ackedBytes: 0,
    tornTails: 0,
    tornTailsQuarantined: 0,
    parentAppends: 0,
    files: 0,
    maxOpenMs: 0,
    maxRecoverMs: 0,
  };
  const lanes = options.lanes ?? 2;
  const perLane = Math.ceil(options.kills / lanes);
  await Promise.all(Array.from({ length: lanes }, (_, lane) => runLane(options, lane, perLane, stats)));
  return stats;
}

/** What the parent knows about one session file: what was acknowledged, which torn tails await a check. */
interface FileState {
  path: string;
  acked: Map<string, number>;
  pendingTorn: { offset: number; bytes: Buffer }[];
}

async function runLane(
  options: CrashRunOptions,
  lane: number,
  kills: number,
  stats: CrashStats,
): Promise<void> {
  const rng = new Random(options.seed * 1000 + lane);
  const perFile = options.killsPerFile ?? 25;
  let state: FileState | null = null;
  let next = new Child();
  try {
    for (let cycle = 0; cycle < kills; cycle++) {
      if (cycle % perFile === 0) {
        if (state) parentAppend(state, stats);
        state = newFile(options.dir, lane, stats);
      }
      const current = next;
      await current.ready;
      next = new Child();
      await killAtRandom(current, state as FileState, rng, stats);
      verifyAfterKill(state as FileState, current, stats);
      if (rng.chance(0.5)) parentAppend(state as FileState, stats);
      options.onKill?.(stats);
    }
    if (state) parentAppend(state, stats);
  } finally {
    next.process.kill("SIGKILL");
    await next.closed;
  }
}

function newFile(dir: string, lane: number, stats: CrashStats): FileState {
  const path = join(dir, `lane${lane}-${stats.files++}.jsonl`);
  SessionFile.create(path, entryMaker().header({ id: randomUUID() }), [], { durability: "fsync" }).close();
  return { path, acked: new Map(), pendingTorn: [] };
}

async function killAtRandom(child: Child, state: FileState, rng: Random, stats: CrashStats): Promise<void> {
  child.send(`go ${state.path} ${rng.between(1, 2 ** 31)}`);
  const roll = rng.next();
  if (roll < 0.35) {
    // Right as the k-th batch starts: the write or its fsync is in flight.
    await child.announcedWrites(rng.between(1, 6), 2_000);
    stats.killsAtWrite++;
  } else if (roll < 0.5) {
    await sleep(rng.between(0, 8));
  } else {
    await sleep(rng.between(8, 80));
  }
  child.process.kill("SIGKILL");
  const ending = await child.closed;
  assert.equal(ending, "SIGKILL", "the crash child must die of our kill, not of an error of its own");
  stats.kills++;
}

function verifyAfterKill(state: FileState, child: Child, stats: CrashStats): void {
  for (const [id, size] of child.acks) state.acked.set(id, size);
  stats.acked += child.acks.length;
  stats.ackedBytes += child.acks.reduce((sum, [, size]) => sum + size, 0);

  const before = statSync(state.path);
  const started = performance.now();
  const file = SessionFile.open(state.path);
  stats.maxOpenMs = Math.max(stats.maxOpenMs, performance.now() - started);
  try {
    const after = statSync(state.path);
    assert.equal(after.size, before.size, "opening must not write");
    assert.equal(after.mtimeMs, before.mtimeMs, "opening must not write");
    checkAcked(file, state);
    const issues = file.getIssues();
    assert.deepEqual(
      issues.filter((issue) => issue.code !== "torn_tail"),
      [],
      `${state.path}: only a torn tail may be wrong after a kill`,
    );
    const torn = issues.find((issue) => issue.code === "torn_tail");
    if (torn) {
      stats.tornTails++;
      const offset = torn.offset as number;
      state.pendingTorn.push({ offset, bytes: readRange(state.path, offset, after.size) });
    }
  } finally {
    file.close();
  }
}

function checkAcked(file: SessionFile, state: FileState): void {
  for (const [id, size] of state.acked) {
    const entry = file.tree.getEntry(id) as CustomEntry<{ size: number; pad: string }> | undefined;
    assert.ok(entry, `${state.path}: acknowledged entry ${id} is missing`);
    assert.equal(entry.data?.pad.length, size, `${state.path}: acknowledged entry ${id} is not whole`);
  }
}

/** The parent's own append after a kill: it works, reopens cleanly, and torn bytes were kept aside. */
function parentAppend(state: FileState, stats: CrashStats): void {
  const started = performance.now();
  const file = SessionFile.open(state.path, { durability: "fsync" });
  let appended: SessionEntry;
  try {
    [appended] = file.write((tree) => [
      tree.append<CustomEntry>({
        type: "custom",
        customType: "durability-test",
        data: { size: 1, pad: "P" },
      }),
    ]) as [SessionEntry];
  } finally {
    file.close();
  }
  stats.maxRecoverMs = Math.max(stats.maxRecoverMs, performance.now() - started);
  stats.parentAppends++;
  state.acked.set(appended.id, 1);
  const reopened = SessionFile.open(state.path);
  try {
    assert.deepEqual(reopened.getIssues(), [], `${state.path}: not clean after the parent's append`);
    checkAcked(reopened, state);
  } finally {
    reopened.close();
  }
  for (const torn of state.pendingTorn) {
    const kept = quarantinesAt(state.path, torn.offset).some((bytes) => bytes.equals(torn.bytes));
    assert.ok(kept, `${state.path}: torn tail at ${torn.offset} was not kept byte-for-byte`);
    stats.tornTailsQuarantined++;
  }
  state.pendingTorn = [];
}

function readRange(path: string, start: number, end: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const bytes = Buffer.alloc(end - start);
    readSync(fd, bytes, 0, bytes.length, start);
    return bytes;
  } finally {
    closeSync(fd);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A crash child and what it said: only complete (newline-terminated) lines count. */
class Child {
  readonly process: ChildProcess;
  readonly ready: Promise<void>;
  /** The signal that ended the child (SIGKILL from us), or its exit code if it died on its own. */
  readonly closed: Promise<string>;
  readonly acks: [string, number][] = [];
  private writes = 0;
  private writeWaiter: { count: number; resolve: () => void } | null = null;
  private buffered = "";

  constructor() {
    this.process = spawn(process.execPath, ["--import", "tsx", CHILD], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    let onReady: () => void = () => {};
    let onEarlyExit: (error: Error) => void = () => {};
    this.ready = new Promise((resolve, reject) => {
      onReady = resolve;
      onEarlyExit = reject;
    });
    this.ready.catch(() => {});
    const stdout = this.process.stdout as NodeJS.ReadableStream;
    stdout.setEncoding("utf8");
    stdout.on("data", (chunk: string) => this.take(chunk, onReady));
    this.closed = new Promise((resolve) =>
      this.process.on("close", (code, signal) => {
        onEarlyExit(new Error(`crash child exited before it was ready (code ${code}, signal ${signal})`));
        resolve(signal ?? `exit ${code}`);
      }),
    );
    this.process.stdin?.on("error", () => {});
  }

  send(line: string): void {
    this.process.stdin?.write(`${line}\n`);
  }

  /** Resolves when the child has announced `count` writes, or after `timeoutMs`. */
  announcedWrites(count: number, timeoutMs: number): Promise<void> {
    if (this.writes >= count) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.writeWaiter = {
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
    });
  }

  private take(chunk: string, onReady: () => void): void {
    this.buffered += chunk;
    let newline = this.buffered.indexOf("\n");
    while (newline !== -1) {
      const line = this.buffered.slice(0, newline);
      this.buffered = this.buffered.slice(newline + 1);
      this.onLine(line, onReady);
      newline = this.buffered.indexOf("\n");
    }
  }

  private onLine(line: string, onReady: () => void): void {
    const [kind, a, b] = line.split(" ");
    if (kind === "ready") onReady();
    else if (kind === "a") this.acks.push([a as string, Number(b)]);
    else if (kind === "w") {
      this.writes++;
      if (this.writeWaiter && this.writes >= this.writeWaiter.count) {
        this.writeWaiter.resolve();
        this.writeWaiter = null;
      }
    }
  }
}
