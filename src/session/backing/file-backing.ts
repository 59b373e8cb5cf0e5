import type { EntryDraft, SessionEntry, SessionHeader } from "../../core/entry.js";
import { CorruptSessionError } from "../../core/errors.js";
import type { SessionIssue } from "../../core/issues.js";
import { SessionTree } from "../../core/tree.js";
import { migrateFile } from "../../file/migrate.js";
import { SessionFile, type SessionFileOptions } from "../../file/session-file.js";
import { TreeReads, type WholeBacking } from "./backing.js";
import { type LeaseMode, LeaseSlot } from "./lease-slot.js";

/** How a file-backed session writes: the file's durability and locking, and the writer lease. */
export interface FileBackingOptions extends SessionFileOptions {
  lease?: LeaseMode;
}

/**
 * A session file read whole (or, for a new session, created with its header on the first write).
 * Every write goes through `SessionFile` (lock, catch-up, one `write`); a leaf move is written as
 * a hidden marker; a file of an older format is rewritten as v3 before the first append.
 */
export class FileBacking extends TreeReads implements WholeBacking {
  /** Reads before the first write of a new session see it empty. */
  private readonly empty = new SessionTree();

  private constructor(
    readonly path: string,
    private readonly newHeader: SessionHeader,
    private file: SessionFile | null,
    private readonly lease: LeaseSlot,
    private readonly options: FileBackingOptions,
    /** A new session's file holds these bytes (a header cut short), moved aside by the first write. */
    private readonly replacing?: Buffer,
  ) {
    super();
  }

  /** An existing session file, read whole; the writer lease (if asked for) is taken now. */
  static open(path: string, options: FileBackingOptions): FileBacking {
    const file = SessionFile.open(path, fileOptions(options));
    return FileBacking.over(file, LeaseSlot.taken(path, options.lease), options);
  }

  /** A file already read whole (after a partial resume), with the lease that came with the session. */
  static over(file: SessionFile, lease: LeaseSlot, options: FileBackingOptions): FileBacking {
    return new FileBacking(file.path, file.header, file, lease, options);
  }

  /**
   * A new session: the file is created, with its header, by the first write (the lease with it).
   * `replacing`: the file holds a header cut short (torn-header.ts), which that write moves aside.
   */
  static unwritten(
    path: string,
    header: SessionHeader,
    options: FileBackingOptions,
    replacing?: Buffer,
  ): FileBacking {
    return new FileBacking(path, header, null, new LeaseSlot(path, options.lease), options, replacing);
  }

  /** A new session file holding `entries`, written now (a branched session); the lease comes with the first append. */
  static create(
    path: string,
    header: SessionHeader,
    entries: readonly SessionEntry[],
    options: FileBackingOptions,
  ): FileBacking {
    const file = SessionFile.create(path, header, entries, fileOptions(options));
    return FileBacking.over(file, new LeaseSlot(path, options.lease), options);
  }

  get header(): SessionHeader {
    return this.file?.header ?? this.newHeader;
  }

  get tree(): SessionTree {
    return this.file?.tree ?? this.empty;
  }

  append(draft: EntryDraft): SessionEntry {
    return this.write((tree) => [tree.append(draft)])[0] as SessionEntry;
  }

  write(build: (tree: SessionTree) => SessionEntry[]): SessionEntry[] {
    return this.writable().write(build);
  }

  /** A leaf move is written as a hidden marker, so the next open lands on the same leaf. */
  persistLeaf(): void {
    if (!this.file) return;
    const leaf = this.file.tree.getLeafId();
    this.writable().write((tree) => {
      if (leaf === null) tree.resetLeaf();
      else tree.branch(leaf);
      return [tree.markLeaf()];
    });
  }

  issues(): SessionIssue[] {
    if (this.file) return this.file.getIssues();
    if (!this.replacing) return this.empty.getIssues();
    const bytes = this.replacing.length;
    const message = `Line 1 (${bytes} bytes) is a session header cut short (an interrupted first write): a new session starts in this file, and its first write moves those bytes to ${this.path}.torn-0-<time>`;
    return [{ code: "torn_tail", severity: "warning", message, line: 1, offset: 0 }];
  }

  refresh(): void {
    this.file?.refresh();
  }

  readOnly(): boolean {
    return this.lease.readOnly;
  }

  whole(): FileBacking {
    return this;
  }

  close(): void {
    this.file?.close();
    this.lease.release();
  }

  /** The file to append to: created with its header on the first write; migrated files rewritten first. */
  private writable(): SessionFile {
    this.lease.checkWritable(this.header.id);
    if (!this.file) {
      this.file = SessionFile.create(
        this.path,
        this.newHeader,
        [],
        fileOptions(this.options),
        this.replacing,
      );
      this.lease.take();
      return this.file;
    }
    if (this.lease.missing) {
      // Closed and written again: the lease was given up with the handle.
      this.lease.take();
      this.lease.checkWritable(this.header.id);
    }
    if (this.file.migratedFrom !== null) this.file = rewrittenAsCurrent(this.file, fileOptions(this.options));
    return this.file;
  }
}

/**
 * Appending v3 lines to an older file would make it unreadable to pi, so the migrated session is
 * first written as v3, atomically, with the original kept as `<file>.v<N>.bak`; the leaf stays.
 */
function rewrittenAsCurrent(file: SessionFile, options: SessionFileOptions): SessionFile {
  const leaf = file.tree.getLeafId();
  // Closed first, so no lock of ours is held while migrateFile takes the file's lock; it re-reads
  // under that lock, so lines another process appended since our read are kept too.
  file.close();
  migrateFile(file.path, { leaveOutDamaged: true });
  const rewritten = SessionFile.open(file.path, options);
  if (rewritten.migratedFrom !== null)
    throw new CorruptSessionError("invalid_header", `Migration of ${file.path} did not stick`);
  rewritten.tree.restoreLeaf(leaf);
  return rewritten;
}

export function fileOptions(options: FileBackingOptions): SessionFileOptions {
  return { durability: options.durability, locking: options.locking };
}
