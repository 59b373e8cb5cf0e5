import { closeSync, constants, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
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
    const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o644);
    if (!tryExclusiveLock(fd)) {
      const holder = readHolder(path);
      closeSync(fd);
      const who = holder
        ? `pid ${holder.pid} on ${holder.host} since ${holder.startedAt}`
        : "another process";
      throw new LeaseHeldError(`Session ${sessionPath} is owned by ${who}`, {
        details: { holder, sessionPath },
      });
    }
    const previous = readHolder(path);
    const me: LeaseHolder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
    ftruncateSync(fd, 0);
    writeSync(fd, JSON.stringify(me), 0);
    return new WriterLease(path, fd, previous);
  }

  /** The current holder as written in the lease file (it may be dead: only the lock says it is alive). */
  static inspect(sessionPath: string): LeaseHolder | null {
    return readHolder(WriterLease.leasePath(sessionPath));
  }

  /** Gives the lease up. The file stays (a record of the last owner); the lock is what counts. */
  release(): void {
    if (this.fd === null) return;
    unlock(this.fd);
    closeSync(this.fd);
    this.fd = null;
  }
}

function readHolder(path: string): LeaseHolder | null {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as LeaseHolder;
    return typeof parsed.pid === "number" ? parsed : null;
  } catch {
    return null;
  }
}
