import type { SessionEntry } from "../../core/entry.js";
import type { SessionTree } from "../../core/tree.js";

/**
 * The leaf as the file says it (its last line, or a leaf marker's parent), set on the tree too. The
 * file layer keeps a reader's own leaf when it catches up with other writers' lines (right for an
 * agent's SessionManager); a store has no position of its own: the file is the truth.
 */
export function syncLeafToFile(tree: SessionTree): string | null {
  const stored = tree.getStoredEntries();
  const last = stored[stored.length - 1];
  let leaf: string | null = null;
  if (last && tree.getEntry(last.id)) leaf = last.id;
  else if (last?.parentId && tree.getEntry(last.parentId)) leaf = last.parentId; // a hidden leaf marker
  if (leaf === null) tree.resetLeaf();
  else if (tree.getLeafId() !== leaf) tree.branch(leaf);
  return leaf;
}

/** The lines that put the leaf where it should be: none when the last line already is the leaf. */
export function markLeaf(tree: SessionTree, leafId: string | null): SessionEntry[] {
  if (tree.getLeafId() === leafId) return [];
  if (leafId === null) tree.resetLeaf();
  else tree.branch(leafId);
  return [tree.markLeaf()];
}
