import type { SessionEntry } from "./entry.js";

/** A node of `getTree()`: a defensive copy of the structure, labels resolved. */
export interface SessionTreeNode {
  entry: SessionEntry;
  children: SessionTreeNode[];
  label?: string;
  labelTimestamp?: string;
}

/** What `buildForest` reads of a tree: its entries by position and their parents' positions. */
export interface ForestSource {
  order: readonly SessionEntry[];
  /** Each position's parent position; -1 for a root, a missing parent or a cycle cut. */
  parentSlot: readonly number[];
  hidden: ReadonlySet<string>;
  labels: ReadonlyMap<string, { label: string; timestamp: string }>;
}

/**
 * The whole session as a forest, children in storage order then sorted by timestamp (oldest
 * first). Two flat passes over positions, no recursion (a 200,000-deep chain is fine) and no
 * map from ids: parents are already known by position. Hidden leaf markers are left out.
 */
export function buildForest(source: ForestSource): SessionTreeNode[] {
  const { order, parentSlot, hidden, labels } = source;
  const nodes = new Array<SessionTreeNode | undefined>(order.length);
  const roots: SessionTreeNode[] = [];
  for (let slot = 0; slot < order.length; slot++) {
    const entry = order[slot] as SessionEntry;
    if (hidden.size > 0 && hidden.has(entry.id)) continue;
    const labelled = labels.size > 0 ? labels.get(entry.id) : undefined;
    const node: SessionTreeNode = {
      entry,
      children: [],
      label: labelled?.label,
      labelTimestamp: labelled?.timestamp,
    };
    nodes[slot] = node;
  }
  for (let slot = 0; slot < order.length; slot++) {
    const node = nodes[slot];
    const parent = parentSlot[slot] as number;
    if (node === undefined) continue;
    const parentNode = parent < 0 ? undefined : nodes[parent];
    if (parentNode) parentNode.children.push(node);
    else roots.push(node);
  }
  for (const node of nodes)
    if (node !== undefined && node.children.length > 1) node.children.sort(byTimestamp);
  return roots;
}

function byTimestamp(a: SessionTreeNode, b: SessionTreeNode): number {
  return Date.parse(a.entry.timestamp) - Date.parse(b.entry.timestamp);
}
