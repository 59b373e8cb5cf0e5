import { type ProjectedContext, projectContext } from "../../core/context.js";
import type { EntryDraft, SessionEntry, SessionHeader } from "../../core/entry.js";
import type { SessionIssue } from "../../core/issues.js";
import type { SessionTree } from "../../core/tree.js";

/**
 * Where a SessionManager's session lives, one object per mode: in memory (`MemoryBacking`), in a
 * file read whole (`FileBacking`), or in a file opened through its sidecar index, of which only the
 * leaf's context was read (`IndexedBacking`). The manager holds exactly one and delegates to it.
 */
export interface SessionBacking {
  readonly header: SessionHeader;
  /** The session file, when there is one (created on the first write for a new session). */
  readonly path: string | undefined;
  leafId(): string | null;
  leafEntry(): SessionEntry | undefined;
  /** The model's context at the leaf, a fresh object the caller may change. */
  context(): ProjectedContext;
  /**
   * Appends `draft` as the leaf's child and moves the leaf to it. Null when this mode cannot write
   * it without the whole tree: the caller then appends through `whole()`.
   */
  append(draft: EntryDraft): SessionEntry | null;
  /** Reads entries other processes appended since the last look (a no-op where there is nothing to read). */
  refresh(): void;
  /** Whether writes are refused because another live process holds the writer lease. */
  readOnly(): boolean;
  /**
   * This session with its whole tree: the backing itself, or for a partial one a whole read of
   * the file, keeping the leaf. After a partial backing answered, the caller uses the answer and
   * drops the partial one.
   */
  whole(): WholeBacking;
  /** Lets go of file handles and the writer lease; the session stays readable and writable. */
  close(): void;
}

/** A backing that holds the whole tree: every read, and every kind of write. */
export interface WholeBacking extends SessionBacking {
  readonly tree: SessionTree;
  append(draft: EntryDraft): SessionEntry;
  /** Writes the entries `build` makes on the tree (ids picked against the complete tree). */
  write(build: (tree: SessionTree) => SessionEntry[]): SessionEntry[];
  /** Makes the tree's current leaf survive a restart (a leaf marker on disk; nothing in memory). */
  persistLeaf(): void;
  /** Problems met reading the session, and in the tree's structure. */
  issues(): SessionIssue[];
}

/** What a backing holding the whole tree answers from the tree alone. */
export abstract class TreeReads {
  abstract readonly tree: SessionTree;

  leafId(): string | null {
    return this.tree.getLeafId();
  }

  leafEntry(): SessionEntry | undefined {
    return this.tree.getLeafEntry();
  }

  context(): ProjectedContext {
    return projectContext(this.tree.getBranchSlots());
  }
}
