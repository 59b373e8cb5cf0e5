import { existsSync } from "node:fs";
import { type ProjectedContext, projectContext } from "../../core/context.js";
import { type EntryDraft, entryTypeInfo, type SessionEntry, type SessionHeader } from "../../core/entry.js";
import { SessionFile } from "../../file/session-file.js";
import { indexPathFor } from "../../file/sidecar-index.js";
import { type PathOnlySession, resumeThroughIndex } from "../context-resume.js";
import type { SessionBacking } from "./backing.js";
import { mayHoldCompaction } from "./compaction-probe.js";
import { FileBacking, type FileBackingOptions, fileOptions } from "./file-backing.js";
import { LeaseSlot } from "./lease-slot.js";

/**
 * Below this size a whole read is quick: no index (and no index file in the cache for every small
 * session).
 */
const INDEXED_FROM_BYTES = 1 << 20;

/**
 * When the leaf's context needs lines holding more than this share of the file (a long chain
 * without a compaction), the file is read whole at open instead: reading nearly all of it line by
 * line costs as much as reading all of it, and the first call that needs the whole tree
 * (getBranch, getTree, a branch) would then read all of it again. Measured on a 200,000-entry
 * chain: open + getBranch took less than half the CPU time. Below it (a branchy session whose path
 * holds 70% of the bytes) reading only the path's lines is still the cheaper open + context.
 */
const WHOLE_READ_ABOVE_SHARE = 0.8;

/**
 * A session file opened through its sidecar index: the leaf and the lines its context needs were
 * read, not the whole file. It answers the leaf and the context, and writes appends that only
 * extend the path (entry types whose registry row says `extendsPathOnly`), until the manager needs
 * the whole tree (`whole()`). Unlike the context-only resume it is built on, it is a
 * SessionManager mode: it writes, under the same lock and catch-up as any writer.
 */
export class IndexedBacking implements SessionBacking {
  private writer: SessionFile | null = null;
  /** Closed by the manager: the next append reads the whole file (our lines are past the index). */
  private closed = false;
  /** The context's entries: those the resume read, then ours, in path order. */
  private readonly entries: SessionEntry[];
  private leaf: string | null;

  private constructor(
    readonly path: string,
    private readonly resumed: PathOnlySession,
    private readonly lease: LeaseSlot,
    private readonly options: FileBackingOptions,
  ) {
    this.entries = resumed.entries.slice();
    this.leaf = resumed.leafId;
  }

  /**
   * `path` opened through its index; null when the file is small, when it has no index yet and no
   * compaction, or when the lines read had problems: the caller then reads it whole.
   *
   * Without a compaction the context is the leaf's whole path: building the index would scan
   * every line and the context would then parse most of them again (all of them for a chain,
   * where the first `getBranch` reads the file whole once more). One whole read parses each line
   * once. A file that already has an index keeps using it (a branchy session whose path holds
   * less than `WHOLE_READ_ABOVE_SHARE` of the bytes reads only those lines).
   */
  static open(path: string, size: number, options: FileBackingOptions): IndexedBacking | null {
    if (size < INDEXED_FROM_BYTES) return null;
    if (!existsSync(indexPathFor(path)) && !mayHoldCompaction(path)) return null;
    const resumed = resumeThroughIndex(path, { wholeAboveShare: WHOLE_READ_ABOVE_SHARE });
    if (!resumed?.coverage || resumed.issues.length > 0) return null;
    return new IndexedBacking(path, resumed, LeaseSlot.taken(path, options.lease), options);
  }

  get header(): SessionHeader {
    return this.resumed.header;
  }

  leafId(): string | null {
    return this.leaf;
  }

  leafEntry(): SessionEntry | undefined {
    const leaf = this.leaf;
    return leaf === null ? undefined : this.entries.findLast((entry) => entry.id === leaf);
  }

  /** The context at the leaf, computed again each time (a few hundred entries: the caller may keep it). */
  context(): ProjectedContext {
    return projectContext(this.entries);
  }

  /**
   * Appends `draft` as the leaf's child; null when its type needs the whole tree first, or when
   * the write must go through a whole read (refused or given-up lease, closed).
   */
  append(draft: EntryDraft): SessionEntry | null {
    if (!this.lease.ready || entryTypeInfo(draft.type)?.extendsPathOnly !== true) return null;
    const writer = this.openWriter();
    if (writer === null) return null;
    const [entry] = writer.write((tree) => [tree.append(draft)]);
    if (!entry) return null;
    this.entries.push(entry);
    this.leaf = entry.id;
    return entry;
  }

  /** Nothing to do: the next write catches up with lines others appended, and a whole read reads them. */
  refresh(): void {}

  readOnly(): boolean {
    return this.lease.readOnly;
  }

  /**
   * The whole file read now, keeping the leaf (lines others appended meanwhile join without
   * moving it, as a catch-up before a write does). Read before anything is let go: if the read
   * fails, this backing is still there.
   */
  whole(): FileBacking {
    const file = SessionFile.open(this.path, fileOptions(this.options));
    this.closeWriter();
    file.tree.restoreLeaf(this.leaf);
    return FileBacking.over(file, this.lease, this.options);
  }

  /** Lets go of the file and the lease; appends then go through a whole read. */
  close(): void {
    this.closeWriter();
    this.lease.release();
  }

  private closeWriter(): void {
    this.writer?.close();
    this.writer = null;
    this.closed = true;
  }

  private openWriter(): SessionFile | null {
    if (this.writer) return this.writer;
    if (this.closed) return null;
    const coverage = this.resumed.coverage;
    // The writer's tree must hold the leaf to append under it.
    if (!coverage || (this.leaf !== null && !this.leafEntry())) return null;
    this.writer = SessionFile.resume(
      this.path,
      { header: this.header, entries: this.entries, leafId: this.leaf, ...coverage },
      fileOptions(this.options),
    );
    return this.writer;
  }
}
