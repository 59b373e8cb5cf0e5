import { closeSync } from "node:fs";
import { Worker } from "node:worker_threads";

/**
 * Locks lent to a watcher thread between the appends of a burst (burst-lock.ts). The main thread
 * keeps a session's flock after a write so the next write of the burst needs neither the lock nor
 * its release (two of an append's four system calls). Keeping a lock is only safe if it is given
 * back even when the main thread cannot run: it may block right after the burst (`execFileSync`
 * of a child that appends to the same session would then wait for us forever). So a small worker
 * thread watches the lent locks and gives back any left unused for `IDLE_MS`, whatever the main
 * thread is doing; the main thread gives them back itself when its job ends or before it waits for
 * a lock. A lent lock is held by a descriptor of its own, so giving it back is closing that
 * descriptor: the worker loads no native add-on.
 *
 * Each slot is three Int32 words shared with the worker: its state, the fd, a use count. Who may
 * close the fd follows the state: FREE and IN_USE belong to the main thread, HELD to
 * whoever moves it on first (the main thread to use it, the worker to release it), RELEASING to
 * the worker until it stores FREE. Nothing is lent before the worker says it is ready.
 */
const FREE = 0;
const HELD = 1;
const IN_USE = 2;
const RELEASING = 3;

/** A lent lock is released once unused this long. */
const IDLE_MS = 1;
const SLOTS = 32;
/** Word 0 wakes the worker when a lock is lent, word 1 says it is ready; then three words a slot. */
const WAKE = 0;
const READY = 1;
const FIRST_SLOT = 2;
const stateAt = (slot: number) => FIRST_SLOT + 3 * slot;
const fdAt = (slot: number) => FIRST_SLOT + 3 * slot + 1;
const usesAt = (slot: number) => FIRST_SLOT + 3 * slot + 2;
const words = new Int32Array(new SharedArrayBuffer(4 * (FIRST_SLOT + 3 * SLOTS)));

/** Main-thread bookkeeping: slots a lender still holds (it lets go when it learns of a release). */
const owned = new Array<boolean>(SLOTS).fill(false);
let watcher: Worker | null = null;
let broken = false;

/**
 * Whether a lock can be lent now: the watcher runs (it is started on the first ask) and a slot is
 * free. Until then writers lock and unlock as usual.
 */
export function canLend(): boolean {
  return !broken && watcherReady() && owned.includes(false);
}

/**
 * Lends the lock held on `fd` (closing `fd` releases it) to the watcher; the slot to reclaim it
 * with, or -1 when none can be lent (see `canLend`): the caller then closes `fd` itself.
 */
export function lend(fd: number): number {
  if (!canLend()) return -1;
  const slot = owned.indexOf(false);
  owned[slot] = true;
  Atomics.store(words, fdAt(slot), fd);
  Atomics.add(words, usesAt(slot), 1);
  Atomics.store(words, stateAt(slot), HELD);
  Atomics.add(words, WAKE, 1);
  Atomics.notify(words, WAKE);
  return slot;
}

/**
 * Takes the lent lock back for one write (the slot is then in use): true when it was still held
 * (no writer that locks can have written since); false when the watcher released it, and the
 * slot is let go.
 */
export function reclaim(slot: number): boolean {
  if (Atomics.compareExchange(words, stateAt(slot), HELD, IN_USE) === HELD) return true;
  waitOutRelease(slot);
  return false;
}

/** Lends the lock back after the write that `reclaim` allowed. */
export function relend(slot: number): void {
  Atomics.add(words, usesAt(slot), 1);
  Atomics.store(words, stateAt(slot), HELD);
}

/**
 * Ends a loan not in use: true when the lock is still ours (the caller closes its fd), false when the
 * watcher released it. The slot is let go either way.
 */
export function endLoan(slot: number): boolean {
  if (Atomics.compareExchange(words, stateAt(slot), HELD, FREE) === HELD) {
    owned[slot] = false;
    return true;
  }
  waitOutRelease(slot);
  return false;
}

/** Ends a loan in use (after `reclaim`): the lock is ours, the caller closes its fd. */
export function endLoanInUse(slot: number): void {
  Atomics.store(words, stateAt(slot), FREE);
  owned[slot] = false;
}

/** After the worker took a slot: waits until it has closed the fd, so the lock is free when we look. */
function waitOutRelease(slot: number): void {
  while (Atomics.load(words, stateAt(slot)) === RELEASING) Atomics.wait(words, stateAt(slot), RELEASING, 1);
  owned[slot] = false;
}

/** Starts the watcher on first need; true once it runs (until then nothing is lent). */
function watcherReady(): boolean {
  if (watcher === null) startWatcher();
  return Atomics.load(words, READY) === 1;
}

function startWatcher(): void {
  try {
    watcher = new Worker(WATCHER_SOURCE, {
      eval: true,
      // The worker is plain JavaScript: none of the parent's loaders (tsx) or flags.
      execArgv: [],
      workerData: { words, slots: SLOTS, idleMs: IDLE_MS },
    });
  } catch {
    broken = true;
    return;
  }
  watcher.unref();
  watcher.on("error", () => {
    // Nobody would give lent locks back: stop lending, and take back what is lent now.
    broken = true;
    for (let slot = 0; slot < SLOTS; slot++) {
      if (owned[slot] && Atomics.compareExchange(words, stateAt(slot), HELD, RELEASING) === HELD) {
        try {
          closeSync(Atomics.load(words, fdAt(slot)));
        } finally {
          Atomics.store(words, stateAt(slot), FREE);
        }
      }
    }
  });
}

/**
 * The watcher: sleeps until a lock is lent, then looks every `idleMs`; a slot whose use count has
 * not moved for `idleMs` is released (HELD → RELEASING, close, FREE). Idleness is timed, not
 * counted in looks: a lend wakes the worker at once, and two looks microseconds apart would find
 * every other lock "unused since".
 */
const WATCHER_SOURCE = `
const { workerData } = require("node:worker_threads");
const { closeSync } = require("node:fs");
const { words, slots, idleMs } = workerData;
const state = (slot) => ${FIRST_SLOT} + 3 * slot;
const seenUses = new Int32Array(slots);
const seenAt = new Float64Array(slots);
Atomics.store(words, ${READY}, 1);
for (;;) {
  // Read before the scan: a lock lent after it changes the word, and the wait returns at once.
  const wake = Atomics.load(words, ${WAKE});
  const now = performance.now();
  let lent = 0;
  for (let slot = 0; slot < slots; slot++) {
    const current = Atomics.load(words, state(slot));
    if (current !== ${HELD} && current !== ${IN_USE}) continue;
    lent++;
    const uses = Atomics.load(words, state(slot) + 2);
    if (current === ${IN_USE} || uses !== seenUses[slot]) {
      seenUses[slot] = uses;
      seenAt[slot] = now;
      continue;
    }
    if (now - seenAt[slot] < idleMs) continue;
    if (Atomics.compareExchange(words, state(slot), ${HELD}, ${RELEASING}) !== ${HELD}) continue;
    try { closeSync(Atomics.load(words, state(slot) + 1)); } catch {}
    Atomics.store(words, state(slot), ${FREE});
    Atomics.notify(words, state(slot));
    lent--;
  }
  Atomics.wait(words, ${WAKE}, wake, lent > 0 ? idleMs / 2 : undefined);
}
`;
