import type { SessionEntry } from "../../core/entry.js";
import { SessionTree } from "../../core/tree.js";
import { lookAt, type SessionShape, shapeOf } from "../session-shape.js";
import { LOOKS, type Look } from "./entry-line.js";

/** A whole session (the export's inlined one, a test's): what `buildModel` indexes in the page. */
export interface ModelInput {
  entries: readonly SessionEntry[];
  leafId: string | null;
  /** Resolved labels, target id → label; read from the entries' label records when left out. */
  labels?: Record<string, string>;
}

/**
 * A session indexed for drawing, from its shape (session-shape.ts): nodes are small integers,
 * per-node facts live in flat arrays, children in one array sliced per parent, so a million
 * entries cost a few typed arrays and no object per entry.
 */
export interface Model {
  n: number;
  ids: readonly string[];
  /** -1 for a root (no parent, a missing parent, or where core cut a parent cycle). */
  parent: Int32Array;
  /** Children of v, oldest first: `childList[childStart[v] .. childStart[v + 1]]`. */
  childStart: Int32Array;
  childList: Int32Array;
  roots: number[];
  /** -1 when the session has no leaf. */
  leaf: number;
  /** 1 for the nodes on the path root → leaf. */
  onPath: Uint8Array;
  labels: Record<string, string>;
  /** The child the drawing continues in the parent's column: the one toward the leaf, else the newest. */
  mainChild: Int32Array;
  /** Entries in each subtree, itself included. */
  subtreeSize: Int32Array;
  /**
   * 1 for a node that may disappear into a folded run unless the user folded it (layout.ts): what
   * decides it is fixed for a shape, so a layout (every fold, at a million entries) only reads it.
   */
  foldable: Uint8Array;
  looks: string;
  /** Row texts; a large session's arrive a page at a time as rows are drawn (text-pages.ts). */
  texts: (string | undefined)[];
  /** Asks for a text not here yet; unset when the shape held them all. */
  wantText: ((v: number) => void) | null;
  /** Row texts of folded runs, by "start:length" (layout.ts). */
  runTexts: Map<string, string>;
  /** Node numbers by id, made on the first lookup (a link, a jump): the first paint needs none. */
  byId: Map<string, number> | null;
}

/** Indexes a shape for drawing: O(n), no recursion. */
export function modelOfShape(shape: SessionShape): Model {
  const n = shape.ids.length;
  // A plain loop: `Int32Array.from` walks an array through its iterator, slow in code run once.
  const parent = new Int32Array(n);
  for (let v = 0; v < n; v++) parent[v] = shape.parents[v] as number;
  const { childStart, childList, roots } = linkChildren(parent, n);
  const onPath = markPath(parent, shape.leaf, n);
  const looks = lookCodes(shape.looks);
  const labeled = labeledNodes(shape.ids, shape.labels);
  return {
    n,
    ids: shape.ids,
    parent,
    childStart,
    childList,
    roots,
    leaf: shape.leaf,
    onPath,
    labels: shape.labels,
    mainChild: mainChildren(childStart, childList, onPath, n),
    subtreeSize: subtreeSizes(parent, childStart, childList, roots, n),
    foldable: foldableNodes({ parent, childStart, childList, leaf: shape.leaf, looks, labeled }),
    looks: shape.looks,
    texts: shape.texts ?? new Array(n),
    wantText: null,
    runTexts: new Map(),
    byId: null,
  };
}

/** A whole session indexed by core, then shaped as the server shapes it (tests, the export). */
export function buildModel(input: ModelInput): Model {
  return modelOfShape(shapeOfEntries(input).shape);
}

/** Core's tree of a whole session and its shape: what the export's page holds. */
export function shapeOfEntries(input: ModelInput): { tree: SessionTree; shape: SessionShape } {
  const tree = new SessionTree();
  for (const entry of input.entries) tree.load(entry);
  const header = { type: "session", version: 3, id: "", timestamp: "", cwd: "" } as const;
  const meta = { key: "", source: "", header, leafId: input.leafId, issues: [] };
  const shape = shapeOf(tree, meta, { texts: true });
  if (input.labels) shape.labels = input.labels;
  return { tree, shape };
}

export function nodeLook(model: Model, v: number): Look {
  return lookAt(model.looks, v);
}

/** What a row shows while its text is on its way. */
export const TEXT_PENDING = "…";

export function nodeText(model: Model, v: number): string {
  const text = model.texts[v];
  if (text !== undefined) return text;
  model.wantText?.(v);
  return TEXT_PENDING;
}

export function labelOf(model: Model, v: number): string | undefined {
  const id = model.ids[v];
  return id === undefined ? undefined : model.labels[id];
}

export function childCount(model: Model, v: number): number {
  return (model.childStart[v + 1] as number) - (model.childStart[v] as number);
}

/** The first child (the only one inside a run); -1 for none. */
export function firstChild(model: Model, v: number): number {
  if (v < 0 || childCount(model, v) === 0) return -1;
  return model.childList[model.childStart[v] as number] as number;
}

export function indexOfId(model: Model, id: string): number | undefined {
  if (!model.byId) {
    const byId = new Map<string, number>();
    for (let i = 0; i < model.n; i++) byId.set(model.ids[i] as string, i);
    model.byId = byId;
  }
  return model.byId.get(id);
}

/** Each node's look as its position in LOOKS (the shape's characters less "a"). */
function lookCodes(looks: string): Uint8Array {
  const codes = new Uint8Array(looks.length);
  for (let v = 0; v < looks.length; v++) codes[v] = looks.charCodeAt(v) - 97;
  return codes;
}

/** 1 for the nodes that carry a label (most sessions have none: no id is looked up then). */
function labeledNodes(ids: readonly string[], labels: Record<string, string>): Uint8Array | null {
  if (Object.keys(labels).length === 0) return null;
  const labeled = new Uint8Array(ids.length);
  for (let v = 0; v < ids.length; v++) if (labels[ids[v] as string] !== undefined) labeled[v] = 1;
  return labeled;
}

/** Looks that always keep their own row: a run never swallows a prompt, a compaction or a summary. */
const KEEPS_ROW = new Set<number>(
  ["user", "compaction", "branchSummary"].map((l) => LOOKS.indexOf(l as Look)),
);
const USER_LOOK = LOOKS.indexOf("user");

/**
 * Whether each node may be folded into a run (not counting the user's folds): a single child of a
 * single-child parent, with one child itself, not the leaf, unlabeled, not a prompt, compaction or
 * summary, and not the turn's answer (the last entry before the next prompt stays in sight).
 */
function foldableNodes(m: {
  parent: Int32Array;
  childStart: Int32Array;
  childList: Int32Array;
  leaf: number;
  looks: Uint8Array;
  labeled: Uint8Array | null;
}): Uint8Array {
  const n = m.parent.length;
  const single = (v: number) => (m.childStart[v + 1] as number) - (m.childStart[v] as number) === 1;
  const foldable = new Uint8Array(n);
  for (let v = 0; v < n; v++) {
    const p = m.parent[v] as number;
    if (p < 0 || !single(p) || !single(v) || v === m.leaf || m.labeled?.[v] === 1) continue;
    if (KEEPS_ROW.has(m.looks[v] as number)) continue;
    const child = m.childList[m.childStart[v] as number] as number;
    foldable[v] = m.looks[child] === USER_LOOK ? 0 : 1;
  }
  return foldable;
}

/** Children lists as one array in node order (so each list is oldest first), and the roots. */
function linkChildren(parent: Int32Array, n: number) {
  const childStart = new Int32Array(n + 1);
  const roots: number[] = [];
  for (let v = 0; v < n; v++) {
    const p = parent[v] as number;
    if (p >= 0) childStart[p + 1] = (childStart[p + 1] as number) + 1;
    else roots.push(v);
  }
  for (let v = 0; v < n; v++) childStart[v + 1] = (childStart[v + 1] as number) + (childStart[v] as number);
  const fill = childStart.slice(0, n);
  const childList = new Int32Array(Math.max(0, n - roots.length));
  for (let v = 0; v < n; v++) {
    const p = parent[v] as number;
    if (p >= 0) {
      childList[fill[p] as number] = v;
      fill[p] = (fill[p] as number) + 1;
    }
  }
  return { childStart, childList, roots };
}

function markPath(parent: Int32Array, leaf: number, n: number): Uint8Array {
  const onPath = new Uint8Array(n);
  for (let x = leaf, budget = n; x >= 0 && budget-- > 0; x = parent[x] as number) onPath[x] = 1;
  return onPath;
}

function mainChildren(childStart: Int32Array, childList: Int32Array, onPath: Uint8Array, n: number) {
  const main = new Int32Array(n).fill(-1);
  for (let v = 0; v < n; v++) {
    const from = childStart[v] as number;
    const to = childStart[v + 1] as number;
    if (from === to) continue;
    let pick = childList[to - 1] as number;
    for (let i = from; i < to; i++) {
      const c = childList[i] as number;
      if (onPath[c] === 1) {
        pick = c;
        break;
      }
    }
    main[v] = pick;
  }
  return main;
}

/** Entries in each subtree (itself included): sizes summed up a parents-first order. */
function subtreeSizes(
  parent: Int32Array,
  childStart: Int32Array,
  childList: Int32Array,
  roots: number[],
  n: number,
): Int32Array {
  const order = new Int32Array(n);
  let end = 0;
  for (const r of roots) order[end++] = r;
  for (let i = 0; i < end; i++) {
    const v = order[i] as number;
    for (let c = childStart[v] as number; c < (childStart[v + 1] as number); c++)
      order[end++] = childList[c] as number;
  }
  const size = new Int32Array(n).fill(1);
  for (let i = end - 1; i >= 0; i--) {
    const v = order[i] as number;
    const p = parent[v] as number;
    if (p >= 0) size[p] = (size[p] as number) + (size[v] as number);
  }
  return size;
}
