import type { SessionEntry } from "../../core/entry.js";
import { SessionTree, type SessionTreeNode } from "../../core/tree.js";
import { subagentNames } from "../../format/describe.js";
import type { Look } from "./entry-line.js";

/** What the page needs of a session to draw it: a `ViewerSession`, or the export's inlined one. */
export interface ModelInput {
  entries: readonly SessionEntry[];
  leafId: string | null;
  /** Resolved labels, target id → label. */
  labels?: Record<string, string>;
}

/**
 * A session indexed for drawing. Nodes are small integers (positions in `entries`); per-node facts
 * live in flat arrays so 100k entries stay cheap.
 */
export interface Model {
  /** Core's index of the session, the one every reader builds: the export projects context from it. */
  tree: SessionTree;
  /** Core's entries: duplicates kept once, leaf markers nobody built on left out. */
  entries: SessionEntry[];
  n: number;
  indexOf: Map<string, number>;
  /** -1 for a root (no parent, a missing parent, or where core cut a parent cycle). */
  parent: Int32Array;
  /** Oldest first. */
  children: number[][];
  roots: number[];
  /** -1 when the session has no leaf. */
  leaf: number;
  /** 1 for the nodes on the path root → leaf. */
  onPath: Uint8Array;
  labels: Record<string, string>;
  /** The subagent of each Claude Code sidechain entry, by id (format/describe.ts). */
  subagents: Map<string, string>;
  /** The child the drawing continues in the parent's column: the one toward the leaf, else the newest. */
  mainChild: Int32Array;
  /** Entries in each subtree, itself included. */
  subtreeSize: Int32Array;
  /** Filled on first use (entry-line.ts): most nodes of a large session are never drawn. */
  looks: (Look | undefined)[];
  texts: (string | undefined)[];
  /** Row texts of folded runs, by "start:length" (layout.ts). */
  runTexts: Map<string, string>;
}

/** Indexes a session for drawing: O(n), no recursion. The structure is core's `SessionTree`. */
export function buildModel(session: ModelInput): Model {
  const tree = new SessionTree();
  for (const entry of session.entries) tree.load(entry);
  const entries = tree.getEntries();
  const n = entries.length;
  const indexOf = new Map<string, number>();
  for (let i = 0; i < n; i++) indexOf.set((entries[i] as SessionEntry).id, i);
  const links = linkForest(tree.getTree(), indexOf, n);
  const leaf = session.leafId ? (indexOf.get(session.leafId) ?? -1) : -1;
  const onPath = markPath(links.parent, leaf, n);
  return {
    tree,
    entries,
    n,
    indexOf,
    parent: links.parent,
    children: links.children,
    roots: links.roots,
    leaf,
    onPath,
    labels: session.labels ?? {},
    subagents: subagentNames(entries),
    mainChild: mainChildren(links.children, onPath),
    subtreeSize: subtreeSizes(links.order, links.parent, n),
    looks: new Array(n),
    texts: new Array(n),
    runTexts: new Map(),
  };
}

export function labelOf(model: Model, v: number): string | undefined {
  return model.labels[(model.entries[v] as SessionEntry).id];
}

interface Links {
  parent: Int32Array;
  children: number[][];
  roots: number[];
  /** Every node, parents before children. */
  order: number[];
}

/**
 * Core's forest (`getTree`: children oldest first, orphans and cycle cuts as roots) as integer
 * links, walked with an explicit stack so a 200,000-deep chain is fine.
 */
function linkForest(forest: SessionTreeNode[], indexOf: Map<string, number>, n: number): Links {
  const at = (node: SessionTreeNode) => indexOf.get(node.entry.id) as number;
  const parent = new Int32Array(n).fill(-1);
  const children: number[][] = Array.from({ length: n }, () => []);
  const order: number[] = [];
  const stack = forest.slice();
  while (stack.length > 0) {
    const node = stack.pop() as SessionTreeNode;
    const v = at(node);
    order.push(v);
    for (const child of node.children) {
      const c = at(child);
      parent[c] = v;
      (children[v] as number[]).push(c);
      stack.push(child);
    }
  }
  return { parent, children, roots: forest.map(at), order };
}

function markPath(parent: Int32Array, leaf: number, n: number): Uint8Array {
  const onPath = new Uint8Array(n);
  for (let x = leaf, budget = n; x >= 0 && budget-- > 0; x = parent[x] as number) onPath[x] = 1;
  return onPath;
}

function mainChildren(children: number[][], onPath: Uint8Array): Int32Array {
  const main = new Int32Array(children.length).fill(-1);
  children.forEach((list, v) => {
    if (list.length === 0) return;
    main[v] = list.find((c) => onPath[c] === 1) ?? (list[list.length - 1] as number);
  });
  return main;
}

/** Entries in each subtree (itself included), from a parents-before-children order. */
function subtreeSizes(order: number[], parent: Int32Array, n: number): Int32Array {
  const size = new Int32Array(n).fill(1);
  for (let i = order.length - 1; i >= 0; i--) {
    const v = order[i] as number;
    const p = parent[v] as number;
    if (p >= 0) size[p] = (size[p] as number) + (size[v] as number);
  }
  return size;
}
