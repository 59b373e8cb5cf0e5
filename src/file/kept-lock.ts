import { fstatSync } from "node:fs";
import { keepLock, releaseKeptLock } from "./flock.js";

/** How long a check of a file under a kept lock holds during a burst of appends. */
const CHECK_HOLDS_MS = 1;

/**
 * The lock a writer in exclusive locking mode keeps from its first write until `close()`: while
 * it is kept, no writer that locks (a repair included) can replace or change the file, so a write
 * needs neither the lock nor a catch-up, only a look at the file's descriptor for what others can
 * do without the lock (pi appending, a torn line, the file removed).
 */
export class KeptLock {
  private fd: number | null = null;
  /** When the file was last found as we left it (performance.now()). */
  private checkedAt = Number.NEGATIVE_INFINITY;

  /**
   * The descriptor to write through without locking again, or null when the lock is not kept or
   * the file is not as we left it (`size` long, still linked). In a burst of appends the file is
   * looked at at most once a millisecond: the stat would cost as much as the write, and a writer
   * without a lock can slip in between a check and a write anyway.
   */
  usable(size: number): number | null {
    const fd = this.fd;
    if (fd === null) return null;
    const now = performance.now();
    if (now - this.checkedAt < CHECK_HOLDS_MS) return fd;
    const current = fstatSync(fd);
    if (current.nlink === 0 || current.size !== size) return null;
    this.checkedAt = now;
    return fd;
  }

  used(): void {
    // Nothing to hand back: the lock stays ours until close().
  }

  /** Exclusive mode keeps every lock it takes. */
  keepsAfterWrite(): boolean {
    return true;
  }

  /** Keeps the lock just taken (and caught up under) on `fd`. */
  keep(fd: number): void {
    this.fd = fd;
    this.checkedAt = performance.now();
    // Another lock wait in this process gives it up first; our next write locks and catches up.
    keepLock(fd, () => this.release());
  }

  release(): void {
    if (this.fd === null) return;
    releaseKeptLock(this.fd);
    this.fd = null;
  }
}
