import type { EntryDraft, SessionEntry } from "../../core/entry.js";

/**
 * What AgentSession needs from wherever a session lives (a SessionManager or a SessionStore).
 * Writes name their parent explicitly, so a turn keeps writing on the branch it started on even
 * when the user moves the leaf meanwhile (pi #6558).
 */
export interface SessionBackend {
  /** The current leaf (null: before the first entry). */
  leafId(): string | null;
  /** The path root → `leafId` (default: the leaf). */
  path(leafId?: string | null): Promise<SessionEntry[]>;
  getEntry(id: string): SessionEntry | undefined;
  /** Whether any entry has `id` as its parent (the leaf is a tip of the tree, or was rewound to). */
  hasChildren(id: string): boolean;
  /**
   * Appends `draft` as a child of `parentId` and returns its id. The leaf follows when it was at
   * `parentId`; otherwise (the user navigated away meanwhile) the leaf stays where the user put it.
   */
  appendUnder(parentId: string | null, draft: EntryDraft): Promise<string>;
  /** Moves the leaf (a rewind / checkout). Nothing is deleted. */
  moveLeaf(id: string | null): Promise<void>;
  /** Moves the leaf to `fromId` and appends a branch summary there; returns the summary's id. */
  branchWithSummary(fromId: string | null, summary: string, details?: unknown): Promise<string>;
}
