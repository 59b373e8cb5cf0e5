import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readSync,
  statSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import type { SessionEntry, SessionHeader } from "../core/entry.js";
import { CorruptSessionError, NotFoundError, SessionTreeError } from "../core/errors.js";
import type { SessionIssue } from "../core/issues.js";
import { SessionTree } from "../core/tree.js";
import { type DecodedSession, SessionDecoder } from "../format/jsonl/decode.js";
import { encodeLine, encodeLines } from "../format/jsonl/encode.js";
import { keepLock, lockExclusive, releaseKeptLock, unlock, withExclusiveLock } from "./flock.js";
import { quarantineBytes } from "./quarantine.js";
import { readFromFd, readSessionFile } from "./read-file.js";

/**
 * How far an acknowledged append has gone when the call returns.
 * - `"os"`: handed to the operating system; survives the process crashing or being killed.
 * - `"fsync"`: on the disk; survives power loss and kernel crashes.
 */
export type Durability = "os" | "fsync";

/**
 * How long a writer holds the file's lock, as SQLite's `locking_mode`.
 * - `"normal"`: for each write only; any number of processes append, each catching up first.
 * - `"exclusive"`: from the first write until `close()` (or the process exits). Writes skip the
 *   lock and, unless a stat of the file shows that a writer without a lock (pi) was there, the
 *   catch-up: a `write`, and in a burst a stat at most once a millisecond. Writers in other
 *   processes wait meanwhile (a writer that has to wait gives up the locks it keeps first, so two
 *   such processes never wait for each other).
 *   For one writer that owns the session, which is what pi assumes of every session.
 */
export type LockingMode = "normal" | "exclusive";

export interface SessionFileOptions {
  /** @default "os" */
  durability?: Durability;
  /** @default "normal" */
  locking?: LockingMode;
}

/**
 * One session file on disk and its tree in memory. Reading never writes. Every write happens under
 * an exclusive flock: first the lines other processes appended since we last looked are read (so new
 * ids are unique and the tree is complete), then a torn tail left by a crashed writer is moved aside,
 * then our lines go out in one `write` at the end of the file.
 */
export class SessionFile {
  private currentTree = new SessionTree();
  private readIssues: SessionIssue[] = [];
  private fd: number | null = null;
  private consumedBytes: number;
  private consumedLines: number;
  private inode: number;
  private pending: PendingAppend[] = [];
  /** The descriptor whose lock is kept between writes (exclusive locking mode), if any. */
  private keptLockFd: number | null = null;
  /** When the file under the kept lock was last found as we left it (performance.now()). */
  private keptCheckedAt = Number.NEGATIVE_INFINITY;
  /** Our last write: where it ended and its bytes, to tell whose lines follow (see `catchUp`). */
  private lastWrite: { end: number; text: string } | null = null;
  /** Lines that should be gone but were not, because a write failed half-way; reload before the next. */
  private dirty = false;

  private constructor(
    readonly path: string,
    public header: SessionHeader,
    decoded: DecodedSession,
    private readonly options: SessionFileOptions,
    inode: number,
  ) {
    this.consumedBytes = 0;
    this.consumedLines = 0;
    this.inode = inode;
    this.migratedFrom = decoded.migratedFrom;
    this.adopt(decoded, inode);
  }

  /** The format version the file is in on disk, when older than v3 (it is migrated in memory). */
  migratedFrom: number | null;

  /** The session's tree, as of the last read or write. */
  get tree(): SessionTree {
    return this.currentTree;
  }

  /** Opens an existing session file. A file that is not a session is an error, and is left alone. */
  static open(path: string, options: SessionFileOptions = {}): SessionFile {
    let decoded: DecodedSession;
    let inode: number;
    try {
      inode = statSync(path).ino;
      decoded = readSessionFile(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        throw new NotFoundError("session_not_found", `No session file at ${path}`, {
          cause: error,
          details: { path },
        });
      }
      throw new SessionTreeError("io_error", `Cannot read ${path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (!decoded.header) throw headerError(path, decoded);
    return new SessionFile(path, decoded.header, decoded, options, inode);
  }

  /**
   * A writer for a session of which only some entries were read (a resume through the sidecar
   * index): `entries` in path order, the leaf among them, the rest of the file known by its size,
   * line count and ids. Appends work as on a whole read (lock, catch-up with lines others wrote
   * since, torn tail aside); the tree holds only what was read and what was written since. Anything
   * unexpected (the file replaced or shrunk) makes it read the whole file, as any writer does.
   */
  static resume(path: string, state: ResumeState, options: SessionFileOptions = {}): SessionFile {
    const decoded: DecodedSession = {
      header: state.header,
      entries: state.entries.map((entry) => ({ entry, line: 0, offset: 0 })),
      issues: [],
      migratedFrom: null,
      tornTail: null,
      completeBytes: state.bytes,
      completeLines: state.lines,
    };
    const file = new SessionFile(path, state.header, decoded, options, state.inode);
    file.tree.reserveIds(state.hasId);
    if (state.leafId === null) file.tree.resetLeaf();
    else file.tree.branch(state.leafId);
    return file;
  }

  /**
   * Creates a new file holding the header and `entries`, failing if the path exists with any
   * content (never overwrites; an empty file is taken over). The content goes out in one write.
   */
  static create(
    path: string,
    header: SessionHeader,
    entries: readonly SessionEntry[],
    options: SessionFileOptions = {},
  ): SessionFile {
    mkdirSync(dirname(path), { recursive: true });
    const data = encodeLine(header) + encodeLines(entries);
    const fd = openNewOrEmpty(path);
    try {
      withExclusiveLock(fd, () => {
        // An empty file may be claimed by two creators at once: only one writes the header.
        if (fstatSync(fd).size !== 0) throw new SessionTreeError("io_error", `${path} is no longer empty`);
        writeAll(fd, data);
        if (options.durability === "fsync") fsyncSync(fd);
      });
    } finally {
      closeSync(fd);
    }
    if (options.durability === "fsync") fsyncDir(dirname(path));
    return SessionFile.open(path, options);
  }

  /** Problems met while reading (with line numbers and offsets) and in the tree's structure. */
  getIssues(): SessionIssue[] {
    return [...this.readIssues, ...this.tree.getIssues()];
  }

  /**
   * Appends under the lock. `build` runs after catching up with other writers and returns the
   * entries to write (typically made with `tree.append`, which picks ids against the complete tree).
   */
  write(build: (tree: SessionTree) => SessionEntry[]): SessionEntry[] {
    return this.underLock((fd) => {
      const { entries, data } = this.prepare(fd, build);
      if (entries.length > 0) this.writeLines(fd, data, entries.length);
      return entries;
    });
  }

  /**
   * Group commit: appends queued in the same turn of the event loop share one lock, one write and
   * (with durability "fsync") one fsync. Each promise resolves when its entries are as durable as
   * the session's durability level says, and not before.
   */
  appendAsync(build: (tree: SessionTree) => SessionEntry[]): Promise<SessionEntry[]> {
    return new Promise((resolve, reject) => {
      this.pending.push({ build, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => this.flushPending());
    });
  }

  private flushPending(): void {
    const batch = this.pending;
    if (batch.length === 0) return; // flushed early, by close()
    this.pending = [];
    const results: SessionEntry[][] = [];
    try {
      this.underLock((fd) => {
        const { entries, data } = this.prepare(fd, (tree) => {
          for (const item of batch) results.push(item.build(tree));
          return results.flat();
        });
        if (entries.length > 0) this.writeLines(fd, data, entries.length);
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    for (const [i, item] of batch.entries()) item.resolve(results[i] as SessionEntry[]);
  }

  /**
   * Runs the builder and checks its entries encode. If either throws, nothing is written and the
   * tree is re-read from disk: entries the builder added in memory must not outlive the failure
   * (the next append would name one as its parent, a parent that is on no disk).
   */
  private prepare(
    fd: number,
    build: (tree: SessionTree) => SessionEntry[],
  ): { entries: SessionEntry[]; data: string } {
    const leaf = this.tree.getLeafId();
    try {
      const entries = build(this.tree);
      return { entries, data: encodeLines(entries) };
    } catch (error) {
      this.reload(fd, this.inode);
      this.tree.restoreLeaf(leaf);
      throw error;
    }
  }

  /**
   * Runs `fn` holding the file's lock, after reading what others appended and moving a torn tail
   * aside. If the file was replaced (a repair renamed a new one in) while we waited for the lock,
   * start over on the new file: writing to the old inode would write into the backup.
   */
  private underLock<T>(fn: (fd: number) => T): T {
    // Exclusive mode: no writer that locks can have written since our last write. A stat still
    // catches what others can do without the lock (pi appending, a torn line, the file removed).
    const kept = this.keptLockFd;
    if (kept !== null && !this.dirty && this.keptFileUnchanged(kept)) return fn(kept);
    this.releaseKeptLock();
    for (;;) {
      const fd = this.openForAppend();
      lockExclusive(fd);
      let keep = false;
      try {
        // One stat of the path says both whether it still names our file and how long that file is.
        const current = statSync(this.path, { throwIfNoEntry: false });
        if (!current || current.ino !== this.inode) {
          this.dirty = true; // reopen the path and re-read it on the next try
          continue;
        }
        this.catchUp(fd, current.size);
        this.moveTornTailAside(fd, current.size);
        const value = fn(fd);
        keep = this.options.locking === "exclusive" && !this.dirty;
        return value;
      } finally {
        if (keep) this.keepLock(fd);
        else unlock(fd);
      }
    }
  }

  /**
   * While we keep the lock, no writer that locks (a repair included) can replace or change the
   * file, so its descriptor tells all: the size (pi's line, a torn one) and the links (removed).
   * In a burst of appends it is asked at most once a millisecond: the stat would cost as much as
   * the write, and a writer without a lock can slip in between a check and a write anyway.
   */
  private keptFileUnchanged(fd: number): boolean {
    const now = performance.now();
    if (now - this.keptCheckedAt < KEPT_LOCK_CHECK_MS) return true;
    const current = fstatSync(fd);
    if (current.nlink === 0 || current.size !== this.consumedBytes) return false;
    this.keptCheckedAt = now;
    return true;
  }

  private keepLock(fd: number): void {
    this.keptLockFd = fd;
    this.keptCheckedAt = performance.now(); // just caught up under the lock
    // Another lock wait in this process gives it up first; our next write locks and catches up.
    keepLock(fd, () => this.releaseKeptLock());
  }

  private releaseKeptLock(): void {
    if (this.keptLockFd === null) return;
    releaseKeptLock(this.keptLockFd);
    this.keptLockFd = null;
  }

  private replacedUnderUs(): boolean {
    try {
      return statSync(this.path).ino !== this.inode;
    } catch {
      return true;
    }
  }

  /** Reads lines other processes appended since we last looked (without taking the lock). */
  refresh(): void {
    if (this.replacedUnderUs()) this.dirty = true;
    const fd = this.openForAppend();
    this.catchUp(fd, fstatSync(fd).size);
  }

  /** Writes appends still queued (`appendAsync`), then lets go of the lock and the file. */
  close(): void {
    this.flushPending();
    this.releaseKeptLock();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private openForAppend(): number {
    // Whether the path still names our file is checked under the lock (underLock), once per write.
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
    if (inode !== this.inode || this.dirty) this.reload(fd, inode);
    this.fd = fd;
    return fd;
  }

  private reload(fd: number, inode: number): void {
    const decoded = readFromFd(fd, 0, new SessionDecoder());
    if (!decoded.header) throw headerError(this.path, decoded);
    const leaf = this.tree.getLeafId();
    this.header = decoded.header;
    this.adopt(decoded, inode);
    this.dirty = false;
    // Keep our place in the conversation if it still exists.
    this.tree.restoreLeaf(leaf);
  }

  private adopt(decoded: DecodedSession, inode: number): void {
    const tree = new SessionTree();
    for (const { entry, line, offset } of decoded.entries) tree.load(entry, { line, offset });
    this.currentTree = tree;
    this.readIssues = decoded.issues;
    this.consumedBytes = decoded.completeBytes;
    this.consumedLines = decoded.completeLines;
    this.inode = inode;
  }

  private catchUp(fd: number, size: number): void {
    if (size === this.consumedBytes) return;
    if (size < this.consumedBytes || !this.lastWriteIsWhereWeThink(fd)) {
      this.reload(fd, this.inode);
      return;
    }
    const decoder = new SessionDecoder({ line: this.consumedLines, offset: this.consumedBytes });
    const decoded = readFromFd(fd, this.consumedBytes, decoder);
    for (const { entry, line, offset } of decoded.entries)
      this.tree.load(entry, { line, offset }, { keepLeaf: true });
    this.readIssues.push(...decoded.issues.filter((issue) => issue.code !== "torn_tail"));
    this.consumedBytes = decoded.completeBytes;
    this.consumedLines = decoded.completeLines;
  }

  /**
   * Whether the file holds our last write where we think it ended. A writer that does not lock
   * (pi) may have appended while we wrote, so that its line sits before ours and everything after
   * our idea of the end is misplaced. Only checked when the file grew since our write, which
   * costs a read when another writer was active and nothing otherwise.
   */
  private lastWriteIsWhereWeThink(fd: number): boolean {
    const last = this.lastWrite;
    if (last === null || last.end !== this.consumedBytes) return true;
    const expected = Buffer.from(last.text);
    const actual = Buffer.alloc(expected.length);
    readSync(fd, actual, 0, actual.length, last.end - expected.length);
    return actual.equals(expected);
  }

  /** Under the lock, bytes after the last newline belong to a writer that died: keep them aside. */
  private moveTornTailAside(fd: number, size: number): void {
    if (size <= this.consumedBytes) return;
    const tail = Buffer.alloc(size - this.consumedBytes);
    readSync(fd, tail, 0, tail.length, this.consumedBytes);
    const savedTo = quarantineBytes(this.path, this.consumedBytes, tail);
    ftruncateSync(fd, this.consumedBytes);
    fsyncSync(fd);
    this.readIssues.push({
      code: "torn_tail",
      severity: "info",
      message: `Moved ${tail.length} unterminated bytes at offset ${this.consumedBytes} to ${savedTo}`,
      line: this.consumedLines + 1,
      offset: this.consumedBytes,
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
        ftruncateSync(fd, this.consumedBytes);
      } catch {
        // The next write will find the torn tail and move it aside.
      }
      throw new SessionTreeError("io_error", `Append to ${this.path} failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
    this.consumedBytes += bytes;
    this.consumedLines += lineCount;
    // Whether a writer that does not lock slipped in before this write is checked when the file is
    // next found longer than this (lastWriteIsWhereWeThink): no extra call on every write.
    this.lastWrite = { end: this.consumedBytes, text: data };
  }
}

/** What `SessionFile.resume` starts from. */
export interface ResumeState {
  header: SessionHeader;
  /** The entries that were read, in path order; the leaf must be one of them. */
  entries: readonly SessionEntry[];
  leafId: string | null;
  inode: number;
  /** Bytes and lines of the file already accounted for (read or indexed). */
  bytes: number;
  lines: number;
  /** Whether an entry of the file that was not read has this id. */
  hasId(id: string): boolean;
}

/** How long a check of a file under a kept lock holds during a burst of appends. */
const KEPT_LOCK_CHECK_MS = 1;

interface PendingAppend {
  build: (tree: SessionTree) => SessionEntry[];
  resolve: (entries: SessionEntry[]) => void;
  reject: (error: unknown) => void;
}

/** Writes all of `text`, returning its length in bytes. A string goes out without a Buffer copy. */
function writeAll(fd: number, text: string): number {
  const bytes = Buffer.byteLength(text);
  const written = writeSync(fd, text);
  if (written < bytes) writeAllBytes(fd, Buffer.from(text).subarray(written));
  return bytes;
}

function writeAllBytes(fd: number, data: Buffer): void {
  let written = 0;
  while (written < data.length) written += writeSync(fd, data, written, data.length - written);
}

/** Makes a new directory entry durable (the file's creation or rename). */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Creates the file, or opens an existing empty one (nothing to lose); never an existing non-empty file. */
function openNewOrEmpty(path: string): number {
  try {
    return openSync(path, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST" || statSync(path).size !== 0) throw error;
    return openSync(path, constants.O_RDWR | constants.O_APPEND);
  }
}

/**
 * Why a file cannot be opened: `not_a_session` when nothing in it is a session (empty, another
 * kind of file), `invalid_header` when it holds a session whose header is damaged or missing.
 */
function headerError(path: string, decoded: DecodedSession): CorruptSessionError {
  const headerIssue = decoded.issues.find((i) => i.code === "invalid_header" || i.code === "missing_header");
  if (decoded.entries.length === 0 && !firstLineClaimsSession(path)) {
    const what = headerIssue ? "holds no session" : "is empty";
    return new CorruptSessionError("not_a_session", `${path} ${what}: not a session file`, {
      details: { path },
    });
  }
  return new CorruptSessionError(
    "invalid_header",
    `${path}: ${headerIssue?.message ?? "no session header"}`,
    {
      details: { path, issues: decoded.issues.slice(0, 20) },
    },
  );
}

/** Whether line 1 is, or was meant to be, a session header (a damaged one still names its type). */
function firstLineClaimsSession(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(4096);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.toString("utf8", 0, n).split("\n", 1)[0] ?? "";
    return /"type"\s*:\s*"sess/.test(text);
  } finally {
    closeSync(fd);
  }
}
