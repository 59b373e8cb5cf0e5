import { forgetKeptLock, keepLock, unlock } from "./flock.js";
import { CHECK_HOLDS_MS, type FileCheck, type HeldLock } from "./held-lock.js";
import { endLoan, endLoanInUse, lend, reclaim, relend } from "./lock-leases.js";

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
  private fd = -1;
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

  constructor(private readonly fileAsLeft: FileCheck) {}

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

  /** Keeps the lock just written under on `fd`, or unlocks it when it cannot be lent. */
  keep(fd: number): void {
    const slot = lend(fd);
    if (slot < 0) {
      unlock(fd);
      return;
    }
    this.fd = fd;
    this.slot = slot;
    this.lentAt = this.checkedAt = performance.now();
    this.releaseWhenUsed = false;
    // Another lock wait in this process gives it up first; our next write locks and catches up.
    keepLock(fd, () => this.release());
  }

  release(): void {
    if (this.slot < 0) return;
    // Unlocking now would let the write in progress go out without the lock.
    this.releaseWhenUsed = this.inUse;
    if (this.inUse) return;
    if (endLoan(this.slot)) unlock(this.fd);
    this.forget();
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
    unlock(this.fd);
    this.forget();
  }

  private forget(): void {
    forgetKeptLock(this.fd);
    this.fd = -1;
    this.slot = -1;
    this.releaseWhenUsed = false;
  }
}
