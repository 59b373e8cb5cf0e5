import type { SessionEntry } from "../core/entry.js";
import { SessionTree } from "../core/tree.js";

/**
 * The entries of a session holding only `path` (root → leaf), as pi's `createBranchedSession`
 * builds it: the path without its label entries, then one label entry per labelled path entry,
 * carrying the time the label was originally set.
 */
export function extractBranch(source: SessionTree, path: readonly SessionEntry[]): SessionEntry[] {
  const tree = new SessionTree();
  const kept = path.filter((e) => e.type !== "label");
  for (const entry of kept) tree.load(entry);
  // In pi's order: its label map's (first set; a cleared label set again goes last), not path order.
  const onPath = new Set(kept.map((e) => e.id));
  for (const [targetId, label] of source.getLabels()) {
    if (onPath.has(targetId)) tree.append({ type: "label", targetId, label });
  }
  return tree.getStoredEntries().map((entry) => {
    if (entry.type !== "label") return entry;
    return { ...entry, timestamp: source.getLabelTimestamp(entry.targetId) ?? entry.timestamp };
  });
}
