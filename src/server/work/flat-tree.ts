import type { SessionEntry } from "../../core/entry.js";
import type { SessionTree } from "../../core/tree.js";
import type { FlatTreeNode } from "../routes/tree-view.js";
import type { TimeSlicer } from "./time-slicer.js";

/**
 * `flattenTree(tree)` (routes/tree-view.ts) cut into slices: the same nodes in the same order
 * (depth first, children oldest first, roots in storage order, orphans as roots), built from the
 * tree's entries and labels with a pause whenever a slice is used up. A stored session has no
 * parent cycles (every parent is stored before its child); the walk still visits each entry once.
 */
export async function flattenTreeSliced(
  tree: SessionTree,
  slicer: TimeSlicer,
): Promise<{ roots: string[]; nodes: FlatTreeNode[] }> {
  const entries = tree.getEntries();
  const children = new Map<string, SessionEntry[]>();
  const ids = new Set<string>();
  for (const entry of entries) ids.add(entry.id);
  const rootEntries: SessionEntry[] = [];
  for (const entry of entries) {
    const parentId = entry.parentId;
    if (parentId === null || parentId === entry.id || !ids.has(parentId)) rootEntries.push(entry);
    else {
      const siblings = children.get(parentId);
      if (siblings) siblings.push(entry);
      else children.set(parentId, [entry]);
    }
    if (slicer.due()) await slicer.pause();
  }
  for (const siblings of children.values()) if (siblings.length > 1) siblings.sort(byTimestamp);

  const nodes: FlatTreeNode[] = [];
  const visited = new Set<string>();
  const stack = rootEntries.slice().reverse();
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    if (visited.has(entry.id)) continue;
    visited.add(entry.id);
    const kids = children.get(entry.id) ?? [];
    nodes.push(flatNode(entry, kids, tree.getLabel(entry.id)));
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i] as SessionEntry);
    if (slicer.due()) await slicer.pause();
  }
  return { roots: rootEntries.map((entry) => entry.id), nodes };
}

function flatNode(entry: SessionEntry, kids: SessionEntry[], label: string | undefined): FlatTreeNode {
  const { id, parentId, type, timestamp } = entry;
  const node: FlatTreeNode = { id, parentId, type, timestamp, children: kids.map((kid) => kid.id) };
  if (label !== undefined) node.label = label;
  return node;
}

/** As core's getTree orders siblings (a stable sort, so equal times keep storage order). */
function byTimestamp(a: SessionEntry, b: SessionEntry): number {
  return Date.parse(a.timestamp) - Date.parse(b.timestamp);
}
