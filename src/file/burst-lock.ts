import { closeSync, constants, fstatSync, openSync } from "node:fs";
import { forgetKeptLock, keepLock, tryExclusiveLock, unlock } from "./flock.js";
import { CHECK_HOLDS_MS, type FileCheck, type HeldLock } from "./held-lock.js";
import { canLend, endLoan, endLoanInUse, lend, reclaim, relend } from "./lock-leases.js";

/**
 * The longest a burst keeps the lock without giving it back: a loop of appends that never pauses
 * would otherwise keep every other writer waiting (synchronously: a lock wait blocks its thread)
 * until the loop ends. Each time this is reached the lock is let go and taken again, which gives a
 * waiting writer the chance it had between any two appends before bursts kept the lock.
 */
export const BURST_HOLD_MAX_MS = 10;

/**
 * The lock of a writer in normal locking mode, kept through a burst: from the second append of a
 * synchronous job (a loop, an import) until the job ends, until it sat unused for a millisecond
 * (lock-leases.ts gives it back even while the main thread is blocked), or for at most
 * `BURST_HOLD_MAX_MS`. The appends in between skip the lock and its release; no writer that locks
 * can have written meanwhile, so they skip the catch-up too (see held-lock.ts for the check).
 * A single append per job, the usual agent turn, locks and unlocks as before.
 */
export class BurstLock implements HeldLock {
  /** The writer's descriptor: writes under the kept lock go through it. */
  private fd = -1;
  /** Another open of the file, holding the lock while it is lent (see `moveLockAside`). */
  private lockFd = -1;
  private slot = -1;
  private lentAt = 0;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private inUse = false;
  /** A release asked for while a write was under the lock (a lock wait in the builder). */
  private releaseWhenUsed = false;
  /** Writes that took the lock in the current job; a microtask resets it when the job ends. */
  private lockedWrites = 0;
  private readonly endJob = () => {
    this.lockedWrites = 0;
    this.release();
  };

  constructor(
    private readonly fileAsLeft: FileCheck,
    /** The session's path and the inode the writer has open. */
    private readonly file: () => { path: string; inode: number },
  ) {}

  usable(): number | null {
    if (this.slot < 0) return null;
    const now = performance.now();
    if (now - this.lentAt >= BURST_HOLD_MAX_MS) {
      this.release();
      return null;
    }
    if (!reclaim(this.slot)) {
      this.forget();
      return null;
    }
    if (now - this.checkedAt >= CHECK_HOLDS_MS && !this.checkFile()) return null;
    this.inUse = true;
    return this.fd;
  }

  used(): void {
    this.inUse = false;
    if (this.releaseWhenUsed) this.giveBackInUse();
    else relend(this.slot);
  }

  /** After a write that took the lock: whether to keep it (from the job's second such write on). */
  keepsAfterWrite(): boolean {
    if (this.lockedWrites++ === 0) queueMicrotask(this.endJob);
    return this.lockedWrites >= 2;
  }

  /** Keeps the lock just written under on `fd`, or lets it go when it cannot be lent. */
  keep(fd: number): void {
    // Until the watcher runs, moving the lock aside would cost five system calls for nothing.
    if (!canLend()) {
      unlock(fd);
      return;
    }
    const lockFd = this.moveLockAside(fd);
    if (lockFd < 0) return;
    const slot = lend(lockFd);
    if (slot < 0) {
      closeSync(lockFd);
      return;
    }
    this.fd = fd;
    this.lockFd = lockFd;
    this.slot = slot;
    this.lentAt = this.checkedAt = performance.now();
    this.releaseWhenUsed = false;
    // Another lock wait in this process gives it up first; our next write locks and catches up.
    keepLock(lockFd, () => this.release());
  }

  release(): void {
    if (this.slot < 0) return;
    // Unlocking now would let the write in progress go out without the lock.
    this.releaseWhenUsed = this.inUse;
    if (this.inUse) return;
    if (endLoan(this.slot)) closeSync(this.lockFd);
    this.forget();
  }

  /**
   * The lock on `fd` moved to a descriptor of its own, another open of the file, which the watcher
   * gives back by closing it: unlocking takes fs-ext, and loading that add-on again in a worker
   * thread resets static handles of the main thread's V8 (heap corruption, seen as a malloc abort).
   * `fd` is unlocked afterwards either way; -1 when the lock could not be moved without a gap
   * another writer used (its lines are then read by the next write, which locks again).
   */
  private moveLockAside(fd: number): number {
    const { path, inode } = this.file();
    let lockFd: number;
    try {
      lockFd = openSync(path, constants.O_RDONLY);
    } catch {
      unlock(fd);
      return -1;
    }
    unlock(fd);
    if (fstatSync(lockFd).ino === inode && tryExclusiveLock(lockFd) && this.fileAsLeft(fd)) return lockFd;
    closeSync(lockFd);
    return -1;
  }

  /** The check of the file, with the slot reclaimed: on a failure or a throw the lock is given back. */
  private checkFile(): boolean {
    let asLeft = false;
    try {
      asLeft = this.fileAsLeft(this.fd);
    } finally {
      if (!asLeft) this.giveBackInUse();
    }
    if (asLeft) this.checkedAt = performance.now();
    return asLeft;
  }

  private giveBackInUse(): void {
    endLoanInUse(this.slot);
    closeSync(this.lockFd);
    this.forget();
  }

  private forget(): void {
    forgetKeptLock(this.lockFd);
    this.fd = -1;
    this.lockFd = -1;
    this.slot = -1;
    this.releaseWhenUsed = false;
  }
}
