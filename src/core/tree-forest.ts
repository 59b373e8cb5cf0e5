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
  parentSlot: ArrayLike<number>;
  hidden: ReadonlySet<string>;
  labels: ReadonlyMap<string, { label: string; timestamp: string }>;
}

/**
 * The whole session as a forest, children in storage order then sorted by timestamp (oldest
 * first). Flat passes over positions, no recursion (a 200,000-deep chain is fine) and no map from
 * ids: parents are already known by position. Each children array is made at its final size,
 * since a 100,000-node forest is mostly garbage-collector work: an array grown by `push` takes
 * room for 16 children at its first one. Hidden leaf markers are left out.
 */
export function buildForest(source: ForestSource): SessionTreeNode[] {
  const { order, parentSlot, labels } = source;
  const hidden = hiddenSlots(source);
  // Each shown node's parent among the shown ones; -1 makes it a root.
  const parents = new Int32Array(order.length);
  const counts = new Int32Array(order.length);
  let rootCount = 0;
  for (let slot = 0; slot < order.length; slot++) {
    if (hidden?.[slot] === 1) continue;
    const parent = parentSlot[slot] as number;
    const shown = parent >= 0 && hidden?.[parent] !== 1 ? parent : -1;
    parents[slot] = shown;
    if (shown >= 0) (counts[shown] as number)++;
    else rootCount++;
  }
  const nodes = new Array<SessionTreeNode | undefined>(order.length);
  for (let slot = 0; slot < order.length; slot++) {
    if (hidden?.[slot] === 1) continue;
    const entry = order[slot] as SessionEntry;
    const labelled = labels.size > 0 ? labels.get(entry.id) : undefined;
    const count = counts[slot] as number;
    nodes[slot] = {
      entry,
      children: count === 0 ? [] : new Array<SessionTreeNode>(count),
      label: labelled?.label,
      labelTimestamp: labelled?.timestamp,
    };
    counts[slot] = 0; // from here on: how many children are in place
  }
  const roots = new Array<SessionTreeNode>(rootCount);
  let rootsPlaced = 0;
  for (let slot = 0; slot < order.length; slot++) {
    const node = nodes[slot];
    if (node === undefined) continue;
    const parent = parents[slot] as number;
    if (parent < 0) roots[rootsPlaced++] = node;
    else {
      const parentNode = nodes[parent] as SessionTreeNode;
      parentNode.children[(counts[parent] as number)++] = node;
    }
  }
  for (const node of nodes)
    if (node !== undefined && node.children.length > 1) node.children.sort(byTimestamp);
  return roots;
}

/** 1 for each position of a hidden leaf marker; null when none is hidden (the usual case). */
function hiddenSlots(source: ForestSource): Uint8Array | null {
  if (source.hidden.size === 0) return null;
  const flags = new Uint8Array(source.order.length);
  source.order.forEach((entry, slot) => {
    if (source.hidden.has(entry.id)) flags[slot] = 1;
  });
  return flags;
}

function byTimestamp(a: SessionTreeNode, b: SessionTreeNode): number {
  return Date.parse(a.entry.timestamp) - Date.parse(b.entry.timestamp);
}
