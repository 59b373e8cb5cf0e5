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
} from "node:fs";
import { dirname } from "node:path";
import type { SessionEntry, SessionHeader } from "../core/entry.js";
import { SessionTreeError } from "../core/errors.js";
import type { SessionIssue } from "../core/issues.js";
import { SessionTree } from "../core/tree.js";
import { encodeLine, encodeLines } from "../format/jsonl/encode.js";
import { withExclusiveLock } from "./flock.js";
import { quarantineBytes } from "./quarantine.js";
import { SessionAppender } from "./session-append.js";
import { type DecodedIntoTree, readForOpen, SessionContents } from "./session-read.js";
import { writeAll } from "./write-all.js";
import { fsyncDir } from "./write-atomic.js";

/**
 * How far an acknowledged append has gone when the call returns.
 * - `"os"`: handed to the operating system; survives the process crashing or being killed.
 * - `"fsync"`: on the disk; survives power loss and kernel crashes.
 */
export type Durability = "os" | "fsync";

/**
 * How long a writer holds the file's lock, as SQLite's `locking_mode`.
 * - `"normal"`: for each write; any number of processes append, each catching up first. A burst
 *   of writes in one synchronous job keeps the lock until the job ends, it sat unused for about a
 *   millisecond, or for 10 ms at most (burst-lock.ts), so its writes after the first two are a
 *   `write` each.
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
 * One session file on disk and its tree in memory. Reading never writes (session-read.ts). Every
 * write happens under an exclusive flock, after catching up with other writers and moving a torn
 * tail aside (session-append.ts); in exclusive locking mode the lock is kept (kept-lock.ts).
 */
export class SessionFile {
  private readonly contents: SessionContents;
  private readonly appender: SessionAppender;
  private pending: PendingAppend[] = [];

  private constructor(
    readonly path: string,
    header: SessionHeader,
    decoded: DecodedIntoTree,
    tree: SessionTree,
    options: SessionFileOptions,
    inode: number,
  ) {
    this.contents = new SessionContents(path, header, inode, decoded, tree);
    this.appender = new SessionAppender(this.contents, options);
    this.migratedFrom = decoded.migratedFrom;
  }

  /** The format version the file is in on disk, when older than v3 (it is migrated in memory). */
  migratedFrom: number | null;

  /** The session's header, as of the last read. */
  get header(): SessionHeader {
    return this.contents.header;
  }

  /** The session's tree, as of the last read or write. */
  get tree(): SessionTree {
    return this.contents.tree;
  }

  /** Opens an existing session file. A file that is not a session is an error, and is left alone. */
  static open(path: string, options: SessionFileOptions = {}): SessionFile {
    const { decoded, tree, inode } = readForOpen(path);
    return new SessionFile(path, decoded.header, decoded, tree, options, inode);
  }

  /**
   * A writer for a session of which only some entries were read (a resume through the sidecar
   * index): `entries` in path order, the leaf among them, the rest of the file known by its size,
   * line count and ids. Appends work as on a whole read (lock, catch-up with lines others wrote
   * since, torn tail aside); the tree holds only what was read and what was written since. Anything
   * unexpected (the file replaced or shrunk) makes it read the whole file, as any writer does.
   */
  static resume(path: string, state: ResumeState, options: SessionFileOptions = {}): SessionFile {
    const decoded: DecodedIntoTree = {
      header: state.header,
      issues: [],
      migratedFrom: null,
      tornTail: null,
      completeBytes: state.bytes,
      completeLines: state.lines,
      // A resume through the index ends at a newline: one that does not is read whole.
      endsMidLine: false,
    };
    const tree = new SessionTree();
    for (const entry of state.entries) tree.load(entry);
    const file = new SessionFile(path, state.header, decoded, tree, options, state.inode);
    file.tree.reserveIds(state.hasId);
    if (state.leafId === null) file.tree.resetLeaf();
    else file.tree.branch(state.leafId);
    return file;
  }

  /**
   * Creates a new file holding the header and `entries`, failing if the path exists with any
   * content (never overwrites; an empty file is taken over). The content goes out in one write.
   * `replacing`: the file may hold exactly these bytes instead (a header cut short, torn-header.ts),
   * which are moved aside, under the lock, before the write.
   */
  static create(
    path: string,
    header: SessionHeader,
    entries: readonly SessionEntry[],
    options: SessionFileOptions = {},
    replacing?: Buffer,
  ): SessionFile {
    mkdirSync(dirname(path), { recursive: true });
    const data = encodeLine(header) + encodeLines(entries);
    const fd = openNewOrEmpty(path, replacing !== undefined);
    try {
      withExclusiveLock(fd, () => {
        // An empty file may be claimed by two creators at once: only one writes the header.
        if (fstatSync(fd).size !== 0) moveAsideOrRefuse(path, fd, replacing);
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
    return [...this.contents.issues, ...this.tree.getIssues()];
  }

  /**
   * Appends under the lock. `build` runs after catching up with other writers and returns the
   * entries to write (typically made with `tree.append`, which picks ids against the complete tree).
   */
  write(build: (tree: SessionTree) => SessionEntry[]): SessionEntry[] {
    return this.appender.append(build);
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
      this.appender.append((tree) => {
        for (const item of batch) results.push(item.build(tree));
        return results.flat();
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    for (const [i, item] of batch.entries()) item.resolve(results[i] as SessionEntry[]);
  }

  /** Reads lines other processes appended since we last looked (without taking the lock). */
  refresh(): void {
    this.appender.refresh();
  }

  /** Writes appends still queued (`appendAsync`), then lets go of the lock and the file. */
  close(): void {
    this.flushPending();
    this.appender.close();
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

interface PendingAppend {
  build: (tree: SessionTree) => SessionEntry[];
  resolve: (entries: SessionEntry[]) => void;
  reject: (error: unknown) => void;
}

/**
 * Creates the file, or opens an existing empty one (nothing to lose); never any other existing
 * file, unless `mayHoldBytes` (a header cut short, checked under the lock by `moveAsideOrRefuse`).
 */
function openNewOrEmpty(path: string, mayHoldBytes: boolean): number {
  try {
    return openSync(path, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    if (!mayHoldBytes && statSync(path).size !== 0) throw error;
    return openSync(path, constants.O_RDWR | constants.O_APPEND);
  }
}

/** Under the lock, a file about to be created that is not empty: the bytes it may hold go aside, else no write. */
function moveAsideOrRefuse(path: string, fd: number, replacing: Buffer | undefined): void {
  const size = fstatSync(fd).size;
  if (replacing && size === replacing.length) {
    const found = Buffer.alloc(size);
    if (readSync(fd, found, 0, size, 0) === size && found.equals(replacing)) {
      quarantineBytes(path, 0, found);
      ftruncateSync(fd, 0);
      return;
    }
  }
  throw new SessionTreeError(
    "io_error",
    `${path} is no longer ${replacing ? "the session header cut short it held" : "empty"}`,
  );
}
