import { Worker } from "node:worker_threads";
import { fsExt, fsExtPath } from "./fs-ext.js";

/**
 * Locks lent to a watcher thread between the appends of a burst (burst-lock.ts). The main thread
 * keeps a session's flock after a write so the next write of the burst needs neither the lock nor
 * its release (two of an append's four system calls). Keeping a lock is only safe if it is given
 * back even when the main thread cannot run: it may block right after the burst (`execFileSync`
 * of a child that appends to the same session would then wait for us forever). So a small worker
 * thread watches the lent locks and unlocks any left unused for `IDLE_MS`, whatever the main thread
 * is doing; the main thread gives them back itself when its job ends or before it waits for a lock.
 *
 * Each slot is three Int32 words shared with the worker: its state, the fd, a use count. Who may
 * touch the fd's lock follows the state: FREE and IN_USE belong to the main thread, HELD to
 * whoever moves it on first (the main thread to use it, the worker to release it), RELEASING to
 * the worker until it stores FREE.
 */
const FREE = 0;
const HELD = 1;
const IN_USE = 2;
const RELEASING = 3;

/** A lock is released once unused this long (at most twice this long). */
export const IDLE_MS = 1;
const SLOTS = 32;
/** Word 0 wakes the worker when a lock is lent; slot `s` uses words 1 + 3s … 3 + 3s. */
const words = new Int32Array(new SharedArrayBuffer(4 * (1 + 3 * SLOTS)));
const stateAt = (slot: number) => 1 + 3 * slot;
const fdAt = (slot: number) => 2 + 3 * slot;
const usesAt = (slot: number) => 3 + 3 * slot;

/** Main-thread bookkeeping: which slots a lender still knows it owns (it forgets on reclaim failure). */
const owned = new Array<boolean>(SLOTS).fill(false);
let watcher: Worker | null = null;
let broken = false;

/**
 * Lends the lock held on `fd` to the watcher; the slot to reclaim it with, or -1 when none can be
 * lent (all slots in use, or no watcher thread can run here): the caller then unlocks as usual.
 */
export function lend(fd: number): number {
  if (broken || !startWatcher()) return -1;
  const slot = owned.indexOf(false);
  if (slot < 0) return -1;
  owned[slot] = true;
  Atomics.store(words, fdAt(slot), fd);
  Atomics.add(words, usesAt(slot), 1);
  Atomics.store(words, stateAt(slot), HELD);
  Atomics.add(words, 0, 1);
  Atomics.notify(words, 0);
  return slot;
}

/**
 * Takes the lent lock back for one write: true when it was still held (no writer that locks can
 * have written since); false when the watcher released it, and the slot is forgotten.
 */
export function reclaim(slot: number): boolean {
  if (Atomics.compareExchange(words, stateAt(slot), HELD, IN_USE) === HELD) return true;
  settle(slot);
  owned[slot] = false;
  return false;
}

/** Lends the lock back after the write that `reclaim` allowed. */
export function relend(slot: number): void {
  Atomics.add(words, usesAt(slot), 1);
  Atomics.store(words, stateAt(slot), HELD);
}

/**
 * Ends the loan: true when the lock is still held by us (the caller unlocks it), false when the
 * watcher already released it. Either way the slot is free afterwards.
 */
export function endLoan(slot: number): boolean {
  const held = Atomics.compareExchange(words, stateAt(slot), HELD, FREE) === HELD;
  if (!held) settle(slot);
  owned[slot] = false;
  return held;
}

/** Waits out a release in progress, so that nobody locks the fd before the worker unlocked it. */
function settle(slot: number): void {
  while (Atomics.load(words, stateAt(slot)) === RELEASING) Atomics.wait(words, stateAt(slot), RELEASING, 1);
  Atomics.store(words, stateAt(slot), FREE);
}

function startWatcher(): boolean {
  if (watcher !== null) return true;
  try {
    watcher = new Worker(WATCHER_SOURCE, {
      eval: true,
      // The worker is plain JavaScript: none of the parent's loaders (tsx) or flags.
      execArgv: [],
      workerData: { words, fsExtPath: fsExtPath(), slots: SLOTS, idleMs: IDLE_MS },
    });
  } catch {
    broken = true;
    return false;
  }
  watcher.unref();
  watcher.on("error", () => {
    // Nobody would give lent locks back: stop lending, and take back what is lent now.
    broken = true;
    for (let slot = 0; slot < SLOTS; slot++) {
      if (owned[slot] && Atomics.compareExchange(words, stateAt(slot), HELD, RELEASING) === HELD) {
        unlockQuietly(Atomics.load(words, fdAt(slot)));
        Atomics.store(words, stateAt(slot), FREE);
      }
    }
  });
  return true;
}

function unlockQuietly(fd: number): void {
  try {
    fsExt().flockSync(fd, "un");
  } catch {
    // The fd was closed: its lock went with it.
  }
}

/**
 * The watcher: sleeps until a lock is lent, then looks every `idleMs`; a slot whose use count did
 * not move since the last look is released (HELD → RELEASING, unlock, FREE).
 */
const WATCHER_SOURCE = `
const { workerData } = require("node:worker_threads");
const { flockSync } = require(workerData.fsExtPath);
const { words, slots, idleMs } = workerData;
const seen = new Int32Array(slots);
for (;;) {
  // Read before the scan: a lock lent after it changes the word, and the wait returns at once.
  const wake = Atomics.load(words, 0);
  let lent = 0;
  for (let slot = 0; slot < slots; slot++) {
    const state = Atomics.load(words, 1 + 3 * slot);
    if (state !== ${HELD} && state !== ${IN_USE}) continue;
    lent++;
    const uses = Atomics.load(words, 3 + 3 * slot);
    if (state === ${IN_USE} || uses !== seen[slot]) { seen[slot] = uses; continue; }
    if (Atomics.compareExchange(words, 1 + 3 * slot, ${HELD}, ${RELEASING}) !== ${HELD}) continue;
    try { flockSync(Atomics.load(words, 2 + 3 * slot), "un"); } catch {}
    Atomics.store(words, 1 + 3 * slot, ${FREE});
    Atomics.notify(words, 1 + 3 * slot);
    lent--;
  }
  Atomics.wait(words, 0, wake, lent > 0 ? idleMs : undefined);
}
`;
