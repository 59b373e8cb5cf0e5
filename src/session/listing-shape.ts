import { isLeafMarker, type SessionEntry } from "../core/entry.js";

/** What a listing shows of a session's tree beside pi's fields: counts, as `tree` counts them. */
export interface ListingShape {
  /** Entries in every branch, hidden leaf markers left out. */
  entryCount: number;
  /** Branches in the tree: 1 for a linear session, 0 for an empty one. */
  branchCount: number;
  /** Problems found reading the file (fsck tells more). */
  issueCount: number;
}

export function listingShapeOf(entries: readonly SessionEntry[], issueCount: number): ListingShape {
  const shown = visibleEntries(entries);
  return { entryCount: shown.length, branchCount: countBranches(shown), issueCount };
}

/**
 * The entries `tree` shows: a leaf marker is bookkeeping and hidden, unless another writer (pi)
 * appended under it, which makes it history (as `SessionTree` reads it).
 */
export function visibleEntries(entries: readonly SessionEntry[]): SessionEntry[] {
  const parents = new Set(entries.map((e) => e.parentId));
  return entries.filter((entry) => !isLeafMarker(entry) || parents.has(entry.id));
}

/** How many branches the tree has: one, plus one more for every extra child anywhere. */
function countBranches(entries: readonly SessionEntry[]): number {
  if (entries.length === 0) return 0;
  const children = new Map<string | null, number>();
  for (const entry of entries) children.set(entry.parentId, (children.get(entry.parentId) ?? 0) + 1);
  let branches = 1;
  for (const count of children.values()) branches += count - 1;
  return branches;
}
