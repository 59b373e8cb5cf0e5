import { forgetKeptLock, keepLock, unlock } from "./flock.js";
import { CHECK_HOLDS_MS, type FileCheck, type HeldLock } from "./held-lock.js";

/**
 * The lock a writer in exclusive locking mode keeps from its first write until `close()`: while
 * it is kept, no writer that locks (a repair included) can replace or change the file, so a write
 * needs neither the lock nor a catch-up, only the check of what others can do without the lock.
 */
export class KeptLock implements HeldLock {
  private fd: number | null = null;
  /** When the file was last found as we left it (performance.now()). */
  private checkedAt = Number.NEGATIVE_INFINITY;
  private inUse = false;
  /** A release asked for while a write was under the lock (a lock wait in the builder). */
  private releaseWhenUsed = false;

  constructor(private readonly fileAsLeft: FileCheck) {}

  usable(): number | null {
    const fd = this.fd;
    if (fd === null) return null;
    const now = performance.now();
    if (now - this.checkedAt >= CHECK_HOLDS_MS) {
      if (!this.fileAsLeft(fd)) return null;
      this.checkedAt = now;
    }
    this.inUse = true;
    return fd;
  }

  used(): void {
    this.inUse = false;
    if (this.releaseWhenUsed) this.release();
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
    // Unlocking now would let the write in progress go out without the lock.
    this.releaseWhenUsed = this.inUse;
    if (this.inUse) return;
    forgetKeptLock(this.fd);
    unlock(this.fd);
    this.fd = null;
  }
}
