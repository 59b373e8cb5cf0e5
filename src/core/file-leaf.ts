import { isLeafMarker, type SessionEntry } from "./entry.js";
import type { SessionTree } from "./tree.js";

/**
 * The leaf a session file opens at, as pi and our reader see it: the last entry, or the parent of a
 * trailing leaf marker. (The reader's own leaf can lag: entries other writers appended join its
 * tree without moving it.)
 */
export function fileLeaf(tree: SessionTree): string | null {
  const stored = tree.getStoredEntries();
  const last = stored[stored.length - 1];
  if (!last) return null;
  return isHiddenMarker(tree, last) ? last.parentId : last.id;
}

/** A leaf marker nobody built on: our bookkeeping, not history (never synced; the leaf is per copy). */
export function isHiddenMarker(tree: SessionTree, entry: SessionEntry): boolean {
  return isLeafMarker(entry) && tree.getEntry(entry.id) === undefined;
}
