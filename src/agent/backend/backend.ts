import type { ProjectedContext } from "../../core/context.js";
import type { EntryDraft, SessionEntry } from "../../core/entry.js";

/**
 * What AgentSession needs from wherever a session lives (a SessionManager or a SessionStore).
 * Writes name their parent explicitly, so a turn keeps writing on the branch it started on even
 * when the user moves the leaf meanwhile (pi #6558).
 */
export interface SessionBackend {
  /** The current leaf (null: before the first entry). */
  leafId(): string | null;
  /**
   * The model's context at `anchor` (default: the leaf; null: before the first entry): what
   * `projectContext` gives for the path root → `anchor`. A path never changes once its last entry
   * exists, so the result is kept and handed out again for the same anchor, and extended (not
   * projected again) when this backend appends under it. Shared: read it, never change it.
   */
  context(anchor?: string | null): Promise<ProjectedContext>;
  /** The path root → `anchor` (default: the leaf). */
  path(anchor?: string | null): Promise<SessionEntry[]>;
  getEntry(id: string): SessionEntry | undefined;
  /** Whether any entry has `id` as its parent (the leaf is a tip of the tree, or was rewound to). */
  hasChildren(id: string): boolean;
  /**
   * Appends `draft` as a child of `parentId` and returns the entry as stored. The leaf follows when
   * it was at `parentId`; otherwise (the user navigated away meanwhile) it stays where the user put it.
   */
  appendUnder(parentId: string | null, draft: EntryDraft): Promise<SessionEntry>;
  /** Moves the leaf (a rewind / checkout). Nothing is deleted. */
  moveLeaf(id: string | null): Promise<void>;
  /** Moves the leaf to `fromId` and appends a branch summary there; returns the summary's id. */
  branchWithSummary(fromId: string | null, summary: string, details?: unknown): Promise<string>;
}
