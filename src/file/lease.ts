import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  openSync,
  readFileSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { LeaseHeldError } from "../core/errors.js";
import { tryExclusiveLock, unlock } from "./flock.js";

/** Who holds (or last held) a session's writer lease. */
export interface LeaseHolder {
  pid: number;
  host: string;
  startedAt: string;
}

/**
 * A writer lease: the agent that owns a session holds an flock on `<session>.lease` for as long as
 * it runs, and writes who it is into the file. The kernel drops the lock when the holder dies, so
 * a dead holder is detected at once (no heartbeat to wait out) and its lease is taken over; a live
 * holder makes a second owner fail with `LeaseHeldError` naming it.
 *
 * A clean release deletes the file, so nothing is left beside the session (often another tool's
 * folder); a file that stays is the record of a holder that died. Deleting is safe because only a
 * holder deletes, while it holds the lock, and an acquirer trusts its lock only once it has checked
 * that the path still names the file it locked: one that locked a file just deleted (it opened the
 * file before the delete) lets it go and tries again on the path's new file.
 */
export class WriterLease {
  private constructor(
    readonly path: string,
    private fd: number | null,
    /** The holder this lease replaced, when it was taken over from a process that died. */
    readonly tookOverFrom: LeaseHolder | null,
  ) {}

  static leasePath(sessionPath: string): string {
    return `${sessionPath}.lease`;
  }

  /** Takes the lease or throws `LeaseHeldError` with the live holder in `details`. */
  static acquire(sessionPath: string): WriterLease {
    const path = WriterLease.leasePath(sessionPath);
    for (;;) {
      const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o644);
      if (!tryExclusiveLock(fd)) {
        const holder = readHolder(fd);
        closeSync(fd);
        throw heldBy(holder, sessionPath);
      }
      // Locked; but the holder we waited on may have deleted this file after we opened it.
      if (!namesFile(path, fstatSync(fd))) {
        closeSync(fd);
        continue;
      }
      const previous = readHolder(fd);
      const me: LeaseHolder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
      ftruncateSync(fd, 0);
      writeSync(fd, JSON.stringify(me), 0);
      return new WriterLease(path, fd, previous);
    }
  }

  /** The current holder as written in the lease file (it may be dead: only the lock says it is alive). */
  static inspect(sessionPath: string): LeaseHolder | null {
    let fd: number;
    try {
      fd = openSync(WriterLease.leasePath(sessionPath), "r");
    } catch {
      return null;
    }
    try {
      return readHolder(fd);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Gives the lease up and deletes its file, still holding the lock (so no other holder's file is
   * ever deleted). A second call does nothing.
   */
  release(): void {
    if (this.fd === null) return;
    const fd = this.fd;
    this.fd = null;
    try {
      // Only our own file: someone may have removed it by hand and another owner made a new one.
      if (namesFile(this.path, fstatSync(fd))) unlinkSync(this.path);
    } catch {
      // Already gone, or a folder we may not delete in: the lock below is what counts.
    } finally {
      unlock(fd);
      closeSync(fd);
    }
  }
}

function heldBy(holder: LeaseHolder | null, sessionPath: string): LeaseHeldError {
  const who = holder ? `pid ${holder.pid} on ${holder.host} since ${holder.startedAt}` : "another process";
  return new LeaseHeldError(`Session ${sessionPath} is owned by ${who}`, {
    details: { holder, sessionPath },
  });
}

/** Whether `path` names the open file whose stat is `opened` (false when the path is gone). */
function namesFile(path: string, opened: Stats): boolean {
  try {
    const now = statSync(path);
    return now.ino === opened.ino && now.dev === opened.dev;
  } catch {
    return false;
  }
}

/** The holder written in the open lease file `fd`; null when it is empty or not a record. */
function readHolder(fd: number): LeaseHolder | null {
  try {
    const parsed = JSON.parse(readFileSync(fd, "utf8")) as LeaseHolder;
    return typeof parsed?.pid === "number" ? parsed : null;
  } catch {
    return null;
  }
}
