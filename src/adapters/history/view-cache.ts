import type { SessionEntry } from "../../core/entry.js";
import type { BranchSince } from "../../store/store.js";
import type { HistoryView } from "./history.js";
import { deepFreeze, SessionLru } from "./session-lru.js";

/** The last view read of one session: the leaf's path, frozen, shared by every view handed out. */
interface KeptView {
  leafId: string | null;
  revision: number;
  path: readonly SessionEntry[];
}

/** A store read of the leaf's path after `knownId` (null: the whole path). */
export type ReadSince = (knownId: string | null) => Promise<BranchSince>;

/**
 * The last view of each of the few sessions a handle served last, so the next view of one reads
 * only what was appended since (`readBranchSince` from the kept leaf): a conversation costs
 * O(new entries) a turn instead of its whole path again. A kept path is never changed (a view
 * extends it into a new array, so views read at the same time cannot disturb each other) and its
 * entries are frozen; each view gets its own copy of the array.
 */
export class ViewCache {
  private readonly kept: SessionLru<KeptView>;

  constructor(capacity = 32) {
    this.kept = new SessionLru(capacity);
  }

  async view(owner: string, sessionId: string, readSince: ReadSince): Promise<HistoryView> {
    const base = this.kept.get(owner, sessionId);
    let read = await readSince(base?.leafId ?? null);
    // Revisions only grow: a lower one is the session purged and created again under the same
    // id, whose path the kept one is not, even if the kept leaf's id is in it.
    if (base && !read.complete && read.revision < base.revision) read = await readSince(null);
    for (const entry of read.entries) deepFreeze(entry);
    const path = read.complete || !base ? read.entries : extended(base.path, read.entries);
    this.kept.set(owner, sessionId, { leafId: read.leafId, revision: read.revision, path });
    return { leafId: read.leafId, path: path.slice(), revision: read.revision };
  }

  forget(owner: string, sessionId: string): void {
    this.kept.delete(owner, sessionId);
  }
}

/** `path` followed by `after`, in a new array when there is anything to add. */
export function extended(path: readonly SessionEntry[], after: SessionEntry[]): readonly SessionEntry[] {
  return after.length === 0 ? path : path.concat(after);
}
