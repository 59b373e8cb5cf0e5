import { forgetKeptLock, keepLock, unlock } from "./flock.js";
import { endLoan, lend, reclaim, relend } from "./lock-leases.js";

/** How long a check of the file holds during a burst of appends (as for the kept lock). */
const CHECK_HOLDS_MS = 1;

/**
 * The lock of a writer in normal locking mode, kept through a burst: from the second append of a
 * synchronous job (a loop, an import) until the job ends, or until it sat unused for a millisecond
 * (lock-leases.ts gives it back even while the main thread is blocked). The appends in between
 * skip the lock and its release; no writer that locks can have written meanwhile, so they skip
 * the catch-up too. What others can do without the lock (pi appending, the file removed or
 * renamed) is looked for at most once a millisecond, as in exclusive mode.
 * A single append per job, the usual agent turn, locks and unlocks as before.
 */
export class BurstLock {
  private fd = -1;
  private slot = -1;
  private checkedAt = Number.NEGATIVE_INFINITY;
  /** Writes that took the lock in the current job; a microtask resets it when the job ends. */
  private lockedWrites = 0;
  private readonly endJob = () => {
    this.lockedWrites = 0;
    this.release();
  };

  /** `fileAsLeft` says, under the lock, whether the file is still the one we wrote, as long as we left it. */
  constructor(private readonly fileAsLeft: (fd: number) => boolean) {}

  /** The descriptor to write through without locking, or null when the lock is not kept (any more). */
  usable(): number | null {
    if (this.slot < 0) return null;
    if (!reclaim(this.slot)) {
      this.forget();
      return null;
    }
    const now = performance.now();
    if (now - this.checkedAt < CHECK_HOLDS_MS) return this.fd;
    if (!this.fileAsLeft(this.fd)) {
      relend(this.slot);
      this.release();
      return null;
    }
    this.checkedAt = now;
    return this.fd;
  }

  /** After a write through the descriptor `usable` returned. */
  used(): void {
    if (this.slot >= 0) relend(this.slot);
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
    this.checkedAt = performance.now();
    // Another lock wait in this process gives it up first; our next write locks and catches up.
    keepLock(fd, () => this.release());
  }

  release(): void {
    if (this.slot < 0) return;
    if (endLoan(this.slot)) unlock(this.fd);
    this.forget();
  }

  private forget(): void {
    forgetKeptLock(this.fd);
    this.fd = -1;
    this.slot = -1;
  }
}
