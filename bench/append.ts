import { closeSync, copyFileSync, fsyncSync, openSync, rmSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import type { SessionMessageEntry } from "../src/core/entry.js";
import type { AppendableMessage } from "../src/core/messages.js";
import { SessionTree } from "../src/core/tree.js";
import { type LockingMode, SessionFile } from "../src/file/session-file.js";
import { encodeLines } from "../src/format/jsonl/encode.js";
import { SessionManager } from "../src/session/session-manager.js";
import type { Row } from "./results.js";
import { median, settle, timeOnce, timeOnceAsync } from "./stats.js";

function message(i: number): AppendableMessage {
  const text = `step ${i}: read the file, run the tests, report what failed and why, then propose a fix`;
  return { role: "user", content: [{ type: "text", text }], timestamp: 1_767_600_000_000 + i };
}

/** A fresh copy of `source` for one contender to append to. */
function copyOf(source: string, name: string): string {
  const target = join(dirname(source), `append-${name}.jsonl`);
  rmSync(target, { force: true });
  rmSync(`${target}.idx`, { force: true });
  copyFileSync(source, target);
  return target;
}

/** The disk's rate of small write + fsync pairs: the ceiling of one-fsync-per-append durability. */
export function fsyncRate(dir: string, count: number): number {
  const path = join(dir, "fsync-probe.bin");
  const fd = openSync(path, "w");
  const line = Buffer.from(`${"x".repeat(200)}\n`);
  const ms = timeOnce(() => {
    for (let i = 0; i < count; i++) {
      writeSync(fd, line);
      fsyncSync(fd);
    }
  });
  closeSync(fd);
  rmSync(path);
  return count / (ms / 1000);
}

/**
 * The CPU ceiling of appending: building entries (ids, timestamps) and encoding them as lines, in
 * memory, with no I/O at all. No durable append can beat it on this machine.
 */
export function encodeCeiling(count: number): number {
  const ms = median(
    [0, 1, 2].map(() => {
      const tree = new SessionTree();
      return timeOnce(() => {
        for (let b = 0; b < count / 1000; b++) {
          const entries = Array.from({ length: 1000 }, (_, i) =>
            tree.append<SessionMessageEntry>({ type: "message", message: message(i) }),
          );
          Buffer.from(encodeLines(entries));
        }
      });
    }),
  );
  return count / (ms / 1000);
}

/** Milliseconds to append `count` messages with pi's appendMessage, on a fresh copy of `source`. */
function timePiAppends(source: string, count: number): number {
  const file = copyOf(source, "pi");
  const manager = PiSessionManager.open(file, dirname(file));
  settle();
  return timeOnce(() => {
    for (let i = 0; i < count; i++) manager.appendMessage(message(i) as never);
  });
}

/**
 * The same with ours, in the given locking mode. The time includes nothing of the open or close;
 * the whole file is read before it, as pi's open does, so both append to a session held whole.
 */
function timeOurAppends(source: string, count: number, locking: LockingMode): number {
  const file = copyOf(source, `ours-${locking}`);
  const manager = SessionManager.open(file, dirname(file), undefined, { locking });
  manager.getEntries();
  settle();
  const ms = timeOnce(() => {
    for (let i = 0; i < count; i++) manager.appendMessage(message(i));
  });
  manager.close();
  return ms;
}

/** What issue 14 asks of plain appends (ours ÷ pi, entries/s): the default locking mode, and in memory. */
const NORMAL_TARGET = 1.2;
const IN_MEMORY_TARGET = 1;

/**
 * Plain appends (the OS has them when the call returns): pi's appendMessage against ours in both
 * locking modes, interleaved run by run after one unmeasured round that warms up all three.
 */
export function measurePlainAppends(source: string, count: number, runs: number): Row[] {
  const times = { pi: [] as number[], normal: [] as number[], exclusive: [] as number[] };
  for (let r = 0; r <= runs; r++) {
    const round = {
      pi: timePiAppends(source, count),
      normal: timeOurAppends(source, count, "normal"),
      exclusive: timeOurAppends(source, count, "exclusive"),
    };
    if (r === 0) continue; // warm-up
    times.pi.push(round.pi);
    times.normal.push(round.normal);
    times.exclusive.push(round.exclusive);
  }
  const rate = (ms: number[]) => count / (median(ms) / 1000);
  return [
    {
      group: "append",
      what: `plain appendMessage ×${count}, locking "exclusive" (one writer, as pi assumes: a write each, the file checked at most once a ms)`,
      unit: "entries/s",
      ours: rate(times.exclusive),
      pi: rate(times.pi),
      target: 1,
    },
    {
      group: "append",
      what: `plain appendMessage ×${count}, locking "normal" (default, many writers: a burst keeps the lock until its job ends)`,
      unit: "entries/s",
      ours: rate(times.normal),
      pi: rate(times.pi),
      target: NORMAL_TARGET,
      note: "the first two appends of the loop take the lock and check the file; the rest write under the kept lock and check the file at most once a ms; pi's appends are not safe with a second writer",
    },
  ];
}

/** `appendMessage` on managers kept in memory (no file): building and indexing entries only. */
export function measureMemoryAppends(count: number, runs: number): Row {
  const times = { pi: [] as number[], ours: [] as number[] };
  for (let r = 0; r <= runs; r++) {
    const pi = PiSessionManager.inMemory("/bench");
    settle();
    const piMs = timeOnce(() => {
      for (let i = 0; i < count; i++) pi.appendMessage(message(i) as never);
    });
    const ours = SessionManager.inMemory("/bench");
    settle();
    const oursMs = timeOnce(() => {
      for (let i = 0; i < count; i++) ours.appendMessage(message(i));
    });
    if (r === 0) continue; // warm-up
    times.pi.push(piMs);
    times.ours.push(oursMs);
  }
  const rate = (ms: number[]) => count / (median(ms) / 1000);
  return {
    group: "append",
    what: `in-memory appendMessage ×${count.toLocaleString("en-US")} (SessionManager.inMemory)`,
    unit: "entries/s",
    ours: rate(times.ours),
    pi: rate(times.pi),
    target: IN_MEMORY_TARGET,
  };
}

/** Durable appends: one fsync each, group commit with concurrent writers, and batched writes. */
export async function measureDurableAppends(
  source: string,
  options: { single: number; grouped: number; writers: number; batch: number },
  fsyncPerSecond: number,
  cpuCeiling: number,
): Promise<Row[]> {
  const group = "append, durable (fsync before the call returns)";
  const physical = (rate: number) =>
    `${(rate / fsyncPerSecond).toFixed(1)} entries per fsync (disk: ${Math.round(fsyncPerSecond)} fsync/s); ` +
    `${Math.round((100 * rate) / cpuCeiling)}% of the CPU ceiling`;

  const singleFile = copyOf(source, "durable-single");
  const manager = SessionManager.open(singleFile, dirname(singleFile), undefined, { durability: "fsync" });
  const singleMs = timeOnce(() => {
    for (let i = 0; i < options.single; i++) manager.appendMessage(message(i));
  });
  manager.close();
  const single = options.single / (singleMs / 1000);

  const groupedFile = SessionFile.open(copyOf(source, "durable-group"), { durability: "fsync" });
  const perWriter = Math.ceil(options.grouped / options.writers);
  const groupedMs = await timeOnceAsync(() =>
    Promise.all(
      Array.from({ length: options.writers }, async (_, w) => {
        for (let i = 0; i < perWriter; i++) {
          await groupedFile.appendAsync((tree) => [
            tree.append<SessionMessageEntry>({ type: "message", message: message(w * perWriter + i) }),
          ]);
        }
      }),
    ),
  );
  groupedFile.close();
  const grouped = (perWriter * options.writers) / (groupedMs / 1000);

  const batchFile = SessionFile.open(copyOf(source, "durable-batch"), { durability: "fsync" });
  const batches = Math.ceil(options.grouped / options.batch);
  const batchMs = timeOnce(() => {
    for (let b = 0; b < batches; b++) {
      batchFile.write((tree) =>
        Array.from({ length: options.batch }, (_, i) =>
          tree.append<SessionMessageEntry>({ type: "message", message: message(b * options.batch + i) }),
        ),
      );
    }
  });
  batchFile.close();
  const batched = (batches * options.batch) / (batchMs / 1000);

  return [
    {
      group,
      what: "SessionManager, durability fsync: one fsync per append",
      unit: "entries/s",
      ours: single,
      pi: null,
      physical: physical(single),
      note: "pi never fsyncs",
    },
    {
      group,
      what: `group commit: ${options.writers} concurrent writers, SessionFile.appendAsync`,
      unit: "entries/s",
      ours: grouped,
      pi: null,
      physical: physical(grouped),
      note: "target ≥ 50,000 entries/s",
    },
    {
      group,
      what: `batched: SessionFile.write with ${options.batch} entries per call`,
      unit: "entries/s",
      ours: batched,
      pi: null,
      physical: physical(batched),
    },
  ];
}
