import type { SessionEntry } from "../../core/entry.js";
import { SessionTree, type SessionTreeNode } from "../../core/tree.js";

/** A node of the API's tree answer (`TreeNode` in schemas.ts). */
export interface FlatTreeNode {
  id: string;
  parentId: string | null;
  type: string;
  timestamp: string;
  label?: string;
  children: string[];
}

/** A stored session's entries in core's SessionTree: its labels, its cycle cuts, its child order. */
export function treeOf(entries: readonly SessionEntry[]): SessionTree {
  const tree = new SessionTree();
  for (const entry of entries) tree.load(entry);
  return tree;
}

/**
 * `SessionTree.getTree()` as the API sends it: flat, nodes naming their children's ids, since a
 * nested answer as deep as a long session would overflow JSON.stringify. Nodes come depth first,
 * each before its children; siblings and roots keep core's order (children oldest first, roots in
 * storage order; orphans and cycle cuts are roots). Iterative, like getTree, for deep chains.
 */
export function flattenTree(tree: SessionTree): { roots: string[]; nodes: FlatTreeNode[] } {
  const forest = tree.getTree();
  const nodes: FlatTreeNode[] = [];
  const stack = forest.slice().reverse();
  for (let node = stack.pop(); node; node = stack.pop()) {
    nodes.push(flatNode(node));
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as SessionTreeNode);
  }
  return { roots: forest.map((root) => root.entry.id), nodes };
}

function flatNode(node: SessionTreeNode): FlatTreeNode {
  const { id, parentId, type, timestamp } = node.entry;
  const flat: FlatTreeNode = { id, parentId, type, timestamp, children: node.children.map(childId) };
  if (node.label !== undefined) flat.label = node.label;
  return flat;
}

const childId = (child: SessionTreeNode) => child.entry.id;
