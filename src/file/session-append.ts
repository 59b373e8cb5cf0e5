import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readSync,
  statSync,
} from "node:fs";
import type { SessionEntry } from "../core/entry.js";
import { NotFoundError, SessionTreeError } from "../core/errors.js";
import type { SessionTree } from "../core/tree.js";
import { encodeLines } from "../format/jsonl/encode.js";
import { BurstLock } from "./burst-lock.js";
import { endOf } from "./file-end.js";
import { lockExclusive, unlock } from "./flock.js";
import type { HeldLock } from "./held-lock.js";
import { KeptLock } from "./kept-lock.js";
import { quarantineBytes } from "./quarantine.js";
import type { SessionFileOptions } from "./session-file.js";
import type { SessionContents } from "./session-read.js";
import { writeAll } from "./write-all.js";

/**
 * How long, in a burst of appends, a look at the session's path holds (does it still name the file
 * we hold open?). A repair or migration keeps the lock longer than this after its rename
 * (rewrite.ts), so its replacement is always seen; this bounds how long a tool that removes or
 * renames the file without the lock goes unseen. A setting for tests.
 */
export const appendChecks = { pathHoldsMs: 1 };

/**
 * The write side of a session file. Every append happens under an exclusive flock: first the lines
 * other processes appended since we last looked are read (so new ids are unique and the tree is
 * complete), then a torn tail left by a crashed writer is moved aside, then our lines go out in
 * one `write` at the end of the file. The lock is kept between appends through a burst in normal
 * locking mode (burst-lock.ts) and until `close()` in exclusive mode (kept-lock.ts).
 */
export class SessionAppender {
  private fd: number | null = null;
  private readonly kept: HeldLock;
  /** Our last write: where it ended and its bytes, to tell whose lines follow (see `catchUp`). */
  private lastWriteEnd = -1;
  private lastWriteText = "";
  /** When the path was last found naming our file (performance.now()), see `sizeIfStillOurs`. */
  private pathCheckedAt = Number.NEGATIVE_INFINITY;
  /** Lines that should be gone but were not, because a write failed half-way; reload before the next. */
  private dirty = false;

  constructor(
    private readonly contents: SessionContents,
    private readonly options: SessionFileOptions,
  ) {
    const fileAsLeft = (fd: number) => this.fileAsLeft(fd);
    this.kept =
      options.locking === "exclusive"
        ? new KeptLock(fileAsLeft)
        : new BurstLock(fileAsLeft, () => ({ path: this.path, inode: this.contents.inode }));
  }

  private get path(): string {
    return this.contents.path;
  }

  /**
   * Appends under the lock. `build` runs after catching up with other writers and returns the
   * entries to write (typically made with `tree.append`, which picks ids against the complete tree).
   * No closure or result object per call: a plain append is a few microseconds, and this is its path.
   */
  append(build: (tree: SessionTree) => SessionEntry[]): SessionEntry[] {
    // A kept lock: no writer that locks can have written since our last write.
    const kept = this.dirty ? null : this.kept.usable();
    if (kept !== null) {
      try {
        return this.buildAndWrite(kept, build);
      } finally {
        this.kept.used();
      }
    }
    this.kept.release();
    for (;;) {
      const fd = this.openForAppend();
      const waited = lockExclusive(fd);
      let keep = false;
      try {
        const size = this.sizeIfStillOurs(fd, waited);
        if (size === null) {
          this.dirty = true; // reopen the path and re-read it on the next try
          continue;
        }
        this.catchUp(fd, size);
        this.moveTornTailAside(fd, size);
        const entries = this.buildAndWrite(fd, build);
        keep = this.kept.keepsAfterWrite() && !this.dirty;
        return entries;
      } finally {
        if (keep) this.kept.keep(fd);
        else unlock(fd);
      }
    }
  }

  /** Reads lines other processes appended since we last looked (without taking the lock). */
  refresh(): void {
    if (this.replacedUnderUs()) this.dirty = true;
    const fd = this.openForAppend();
    this.catchUp(fd, fstatSync(fd).size);
  }

  /** Lets go of the lock and the file. */
  close(): void {
    this.kept.release();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /**
   * Runs the builder, checks its entries encode and writes them. If the builder or the encoding
   * throws, nothing is written and the tree is re-read from disk: entries the builder added in
   * memory must not outlive the failure (the next append would name one as its parent, a parent
   * that is on no disk).
   */
  private buildAndWrite(fd: number, build: (tree: SessionTree) => SessionEntry[]): SessionEntry[] {
    const tree = this.contents.tree;
    const leaf = tree.getLeafId();
    let entries: SessionEntry[];
    let data: string;
    try {
      entries = build(tree);
      data = encodeLines(entries);
    } catch (error) {
      this.reload(fd, this.contents.inode);
      this.contents.tree.restoreLeaf(leaf);
      throw error;
    }
    // A last line another tool left without its newline gets it first, or our first line would be glued to it.
    if (entries.length > 0)
      this.writeLines(fd, this.contents.endsMidLine ? `\n${data}` : data, entries.length);
    return entries;
  }

  /**
   * Under the lock: the size of the file we hold open, or null when the path no longer names it
   * (removed, or replaced by a repair that renamed a new file in: writing to it would write into
   * the repair's backup, which nobody reads as the session). The size comes from our descriptor
   * (`endOf`, half a stat's cost). The path is asked (a stat) when that size is not the one we
   * left, when we had to wait for the lock (its holder may have been a repair), or when its last
   * answer is older than `appendChecks.pathHoldsMs`. A repair or migration holds the lock that
   * long after its rename (`replaceKeepingBackup`), so a writer either waits for it or finds its
   * last look too old; a tool that removes or renames the file without the lock is seen by the
   * age rule alone.
   */
  private sizeIfStillOurs(fd: number, waited: boolean): number | null {
    const size = endOf(fd);
    const now = performance.now();
    const recent = now - this.pathCheckedAt < appendChecks.pathHoldsMs;
    if (size === this.contents.bytes && !waited && recent) return size;
    const current = statSync(this.path, { throwIfNoEntry: false });
    if (!current || current.ino !== this.contents.inode) return null;
    this.pathCheckedAt = now;
    return size;
  }

  /** Under a kept lock: whether the path still names our file, and it ends where our last write did. */
  private fileAsLeft(fd: number): boolean {
    if (endOf(fd) !== this.contents.bytes) return false;
    const current = statSync(this.path, { throwIfNoEntry: false });
    return current !== undefined && current.ino === this.contents.inode;
  }

  private replacedUnderUs(): boolean {
    try {
      return statSync(this.path).ino !== this.contents.inode;
    } catch {
      return true;
    }
  }

  private openForAppend(): number {
    // Whether the path still names our file is checked under the lock (sizeIfStillOurs) before each write.
    if (this.fd !== null && !this.dirty) return this.fd;
    // First write, or the file was replaced under us (a repair renamed a new one in): start over.
    this.close();
    // No O_CREAT: a session file that vanished must not come back as an empty, headerless file.
    let fd: number;
    try {
      fd = openSync(this.path, constants.O_RDWR | constants.O_APPEND);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      throw new NotFoundError("session_not_found", `Session file ${this.path} is gone`, { cause: error });
    }
    const inode = fstatSync(fd).ino;
    if (inode !== this.contents.inode || this.dirty) this.reload(fd, inode);
    this.fd = fd;
    return fd;
  }

  private reload(fd: number, inode: number): void {
    this.contents.reload(fd, inode);
    this.dirty = false;
  }

  private catchUp(fd: number, size: number): void {
    if (size === this.contents.bytes) return;
    if (size < this.contents.bytes || !this.lastWriteIsWhereWeThink(fd)) {
      this.reload(fd, this.contents.inode);
      return;
    }
    this.contents.readAppended(fd);
  }

  /**
   * Whether the file holds our last write where we think it ended. A writer that does not lock
   * (pi) may have appended while we wrote, so that its line sits before ours and everything after
   * our idea of the end is misplaced. Only checked when the file grew since our write, which
   * costs a read when another writer was active and nothing otherwise.
   */
  private lastWriteIsWhereWeThink(fd: number): boolean {
    const end = this.lastWriteEnd;
    if (end !== this.contents.bytes) return true;
    const expected = Buffer.from(this.lastWriteText);
    const actual = Buffer.alloc(expected.length);
    readSync(fd, actual, 0, actual.length, end - expected.length);
    return actual.equals(expected);
  }

  /** Under the lock, bytes after the last newline belong to a writer that died: keep them aside. */
  private moveTornTailAside(fd: number, size: number): void {
    const { bytes, lines } = this.contents;
    if (size <= bytes) return;
    const tail = Buffer.alloc(size - bytes);
    readSync(fd, tail, 0, tail.length, bytes);
    const savedTo = quarantineBytes(this.path, bytes, tail);
    ftruncateSync(fd, bytes);
    fsyncSync(fd);
    this.contents.issues.push({
      code: "torn_tail",
      severity: "info",
      message: `Moved ${tail.length} unterminated bytes at offset ${bytes} to ${savedTo}`,
      line: lines + 1,
      offset: bytes,
    });
  }

  private writeLines(fd: number, data: string, lineCount: number): void {
    let bytes: number;
    try {
      bytes = writeAll(fd, data);
      if (this.options.durability === "fsync") fsyncSync(fd);
    } catch (error) {
      // A partial write would leave a torn line: cut back to the last whole line, and re-read the
      // file before the next write so memory matches the disk again.
      this.dirty = true;
      try {
        ftruncateSync(fd, this.contents.bytes);
      } catch {
        // The next write will find the torn tail and move it aside.
      }
      throw new SessionTreeError("io_error", `Append to ${this.path} failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
    this.contents.wrote(bytes, lineCount);
    // Whether a writer that does not lock slipped in before this write is checked when the file is
    // next found longer than this (lastWriteIsWhereWeThink): no extra call on every write.
    this.lastWriteEnd = this.contents.bytes;
    this.lastWriteText = data;
  }
}
