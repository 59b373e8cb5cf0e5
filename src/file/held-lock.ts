/**
 * A lock a session writer keeps between appends: to the end of a burst in normal locking mode
 * (burst-lock.ts) or until `close()` in exclusive mode (kept-lock.ts). While it is kept no writer
 * that locks can write, so an append under it needs no catch-up; what others do without the lock
 * (pi appending, the file removed or renamed) is looked for by a check of the file at most once
 * every `CHECK_HOLDS_MS`: the check would cost as much as the write, and a writer without a lock
 * can slip in between a check and a write anyway.
 */
export interface HeldLock {
  /** The descriptor to write through without locking (the lock is then in use), or null. */
  usable(): number | null;
  /** After the write through that descriptor, thrown or not. */
  used(): void;
  /** After a write that took the lock: whether to keep it. */
  keepsAfterWrite(): boolean;
  keep(fd: number): void;
  /** Lets the lock go; one in use goes when its write is done. */
  release(): void;
}

export const CHECK_HOLDS_MS = 1;

/** Under the lock: whether the file is still ours, as long as our last write left it. */
export type FileCheck = (fd: number) => boolean;
