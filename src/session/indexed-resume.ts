import { type ProjectedContext, projectContext } from "../core/context.js";
import type { EntryDraft, SessionEntry, SessionHeader } from "../core/entry.js";
import { SessionFile, type SessionFileOptions } from "../file/session-file.js";
import { type PathOnlySession, resumeThroughIndex } from "./path-resume.js";

/**
 * Below this size a whole read is quick: no index (and no `.idx` file beside every small session).
 */
const INDEXED_RESUME_FROM_BYTES = 1 << 20;

/**
 * Entries whose append keeps the context computable from the lines read so far plus the new ones:
 * they only extend the path at its end, and the projection needs nothing older of them. A
 * compaction (its kept entry may lie before what was read), a branch summary or a label (they name
 * other entries) make the manager read the whole file first.
 */
const APPENDABLE = new Set([
  "message",
  "custom_message",
  "custom",
  "thinking_level_change",
  "model_change",
  "session_info",
]);

/**
 * A session opened through the sidecar index: the leaf and the lines its context needs were read,
 * not the whole file. It answers the leaf and the context, and appends that extend the path, until
 * the manager needs the whole tree (`SessionManager.loadedFile`).
 */
export class IndexedResume {
  private writer: SessionFile | null = null;
  /** Closed by the manager: the next append reads the whole file (our lines are past the index). */
  private closed = false;
  /** The context's entries: those the resume read, then ours, in path order. */
  private readonly entries: SessionEntry[];
  private leaf: string | null;

  private constructor(
    readonly path: string,
    private readonly resumed: PathOnlySession,
    private readonly options: SessionFileOptions,
  ) {
    this.entries = resumed.entries.slice();
    this.leaf = resumed.leafId;
  }

  /** A resume of `path` through its index; null when the file is small or the lines read had problems. */
  static open(path: string, size: number, options: SessionFileOptions): IndexedResume | null {
    if (size < INDEXED_RESUME_FROM_BYTES) return null;
    const resumed = resumeThroughIndex(path);
    if (!resumed?.coverage || resumed.issues.length > 0) return null;
    return new IndexedResume(path, resumed, options);
  }

  get header(): SessionHeader {
    return this.resumed.header;
  }

  get leafId(): string | null {
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

  /** Appends `draft` as the leaf's child; null when its kind needs the whole tree first. */
  tryAppend(draft: EntryDraft): SessionEntry | null {
    if (!APPENDABLE.has(draft.type as string)) return null;
    const writer = this.openWriter();
    if (writer === null) return null;
    const [entry] = writer.write((tree) => [tree.append(draft)]);
    if (!entry) return null;
    this.entries.push(entry);
    this.leaf = entry.id;
    return entry;
  }

  /** Lets go of the file; appends then go through a whole read. */
  close(): void {
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
      this.options,
    );
    return this.writer;
  }
}
