import type { EntryDraft, SessionEntry } from "../../core/entry.js";

/**
 * Where an adapter keeps a conversation: one session of a SessionStore, or a SessionManager. The
 * adapters speak only this, so each framework's mapping is written once for both.
 */
export interface History {
  /** The session's id; a store session is created on first use. */
  sessionId(): Promise<string>;
  /** The leaf and the path root → leaf, read as one consistent view. */
  view(): Promise<HistoryView>;
  /** The leaf and the revision only: what an append under the leaf needs, without the path. */
  head(): Promise<HistoryHead>;
  /** Every entry in storage order (for branches and alternatives). */
  entries(): Promise<SessionEntry[]>;
  /** The path root → `id` (null: empty). An unknown id is `entry_not_found`. */
  pathTo(id: string | null): Promise<SessionEntry[]>;
  /**
   * Appends `drafts` as a chain under `parentId` in one write and moves the leaf to the last one.
   * With `since`, the write is refused (`ConflictError`) when the session changed after that view.
   */
  appendChain(parentId: string | null, drafts: EntryDraft[], since?: HistoryHead): Promise<SessionEntry[]>;
  /** Moves the leaf (null: before the root). Nothing is deleted. */
  moveLeaf(id: string | null, since?: HistoryHead): Promise<void>;
  /**
   * Runs `write` — a read, a plan on it, and writes naming the read (`since`) — after every earlier
   * `update` of this session through the same handle (a StoreHandle's; a ManagerHistory's own),
   * and again on a fresh read when another writer got in first (`retryOnRace`): the way the
   * adapters change a conversation (the LangGraph saver queues and retries its own batches).
   */
  update<T>(write: () => Promise<T>): Promise<T>;
}

export interface HistoryHead {
  leafId: string | null;
  /** The store's revision when the view was read (undefined over a SessionManager). */
  revision?: number;
}

export interface HistoryView extends HistoryHead {
  path: SessionEntry[];
}
