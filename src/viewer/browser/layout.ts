/**
 * The tree layout. One row per visible node in preorder, one column per branch depth, so the
 * drawing reads like a git graph with each entry's text beside its dot. At every fork the branches
 * not taken are listed first, indented one column, and the continuation (the child toward the leaf,
 * else the newest) goes last in the parent's column: the current conversation is one straight line
 * on the left, and no edge ever crosses a row's text.
 *
 * Long linear runs (no fork, no label, not the leaf, no user message, compaction or summary) fold
 * into one expandable row. O(n) per layout, an explicit stack, no recursion.
 */
import { firstChild, type Model, nodeLook } from "./model.js";

/** What the user chose to see: folded subtrees, unfolded runs, whether runs fold at all. */
export interface LayoutState {
  collapsed: Set<number>;
  expandedRuns: Set<number>;
  foldRuns: boolean;
}

/** Per-row facts, in typed arrays indexed by row (sized for every node; `count` are used). */
export interface LayoutRows {
  node: Int32Array;
  /** 0 for a node's own row; for a folded run, how many nodes it holds (`node` is the first). */
  run: Int32Array;
  col: Int32Array;
  /** The row of the parent, -1 for a root. */
  parent: Int32Array;
  /** The last row whose parent is this row, -1 if none. */
  lastChild: Int32Array;
  /** How many entries a folded subtree hides. */
  hidden: Int32Array;
}

export interface Layout {
  rows: LayoutRows;
  count: number;
  /** The row showing each node (its own or its run's). */
  nodeRow: Int32Array;
  maxCol: number;
}

const MIN_RUN = 3;

/**
 * Rows are added in preorder; the stack holds nodes still to place. Every array is allocated once
 * at the session's size: a relayout of 100,000 entries makes no garbage per row.
 */
class RowBuilder {
  readonly rows: LayoutRows;
  count = 0;
  maxCol = 0;
  readonly stackNode: Int32Array;
  readonly stackParent: Int32Array;
  readonly stackCol: Int32Array;
  readonly stackOpen: Uint8Array;
  depth = 0;

  constructor(
    readonly model: Model,
    readonly state: LayoutState,
  ) {
    const n = Math.max(1, model.n);
    this.rows = {
      node: new Int32Array(n),
      run: new Int32Array(n),
      col: new Int32Array(n),
      parent: new Int32Array(n),
      lastChild: new Int32Array(n),
      hidden: new Int32Array(n),
    };
    this.stackNode = new Int32Array(n);
    this.stackParent = new Int32Array(n);
    this.stackCol = new Int32Array(n);
    this.stackOpen = new Uint8Array(n);
  }

  /** `open`: the node continues a run that was not folded, so it may not start a new one. */
  push(v: number, parentRow: number, col: number, open: boolean): void {
    const d = this.depth++;
    this.stackNode[d] = v;
    this.stackParent[d] = parentRow;
    this.stackCol[d] = col;
    this.stackOpen[d] = open ? 1 : 0;
  }

  emit(v: number, run: number, parentRow: number, col: number): number {
    const { rows, state, model } = this;
    const r = this.count++;
    rows.node[r] = v;
    rows.run[r] = run;
    rows.col[r] = col;
    rows.parent[r] = parentRow;
    rows.lastChild[r] = -1;
    rows.hidden[r] = run === 0 && isCollapsed(state, v) ? (model.subtreeSize[v] as number) - 1 : 0;
    if (parentRow >= 0) rows.lastChild[parentRow] = r;
    if (col > this.maxCol) this.maxCol = col;
    return r;
  }
}

export function layoutTree(model: Model, state: LayoutState): Layout {
  const b = new RowBuilder(model, state);
  const nodeRow = new Int32Array(model.n).fill(-1);
  for (let i = model.roots.length - 1; i >= 0; i--) b.push(model.roots[i] as number, -1, 0, false);
  while (b.depth > 0) {
    const d = --b.depth;
    const v = b.stackNode[d] as number;
    const parentRow = b.stackParent[d] as number;
    const col = b.stackCol[d] as number;
    const open = b.stackOpen[d] === 1;
    const foldable = state.foldRuns && isFoldable(model, state, v);
    if (foldable && !open && foldRun(b, v, parentRow, col, nodeRow)) continue;
    const row = b.emit(v, 0, parentRow, col);
    nodeRow[v] = row;
    if (!isCollapsed(state, v)) pushChildren(b, v, row, col, foldable);
  }
  return { rows: b.rows, count: b.count, nodeRow, maxCol: b.maxCol };
}

/** Folds the run starting at v into one row, if it is long enough and not unfolded by the user. */
function foldRun(b: RowBuilder, v: number, parentRow: number, col: number, nodeRow: Int32Array): boolean {
  const { model, state } = b;
  let last = v;
  let length = 1;
  while (isFoldable(model, state, onlyChild(model, last))) {
    last = onlyChild(model, last);
    length++;
  }
  if (length < MIN_RUN || state.expandedRuns.has(v)) return false;
  const runRow = b.emit(v, length, parentRow, col);
  for (let m = v, k = 0; k < length; k++, m = onlyChild(model, m)) nodeRow[m] = runRow;
  b.push(onlyChild(model, last), runRow, col, false);
  return true;
}

/** The continuation is pushed first so that it pops last: side branches are listed before it. */
function pushChildren(b: RowBuilder, v: number, row: number, col: number, inRun: boolean): void {
  const { childStart, childList, mainChild } = b.model;
  const main = mainChild[v] as number;
  if (main >= 0) b.push(main, row, col, inRun);
  for (let i = (childStart[v + 1] as number) - 1; i >= (childStart[v] as number); i--)
    if (childList[i] !== main) b.push(childList[i] as number, row, col + 1, false);
}

const onlyChild = firstChild;

/** Whether a node may disappear into a folded run (model.ts's `foldable`, unless the user folded it). */
function isFoldable(model: Model, state: LayoutState, v: number): boolean {
  return v >= 0 && model.foldable[v] === 1 && !isCollapsed(state, v);
}

/** Whether the user folded v's subtree (most layouts have no fold: no lookup then). */
function isCollapsed(state: LayoutState, v: number): boolean {
  return state.collapsed.size > 0 && state.collapsed.has(v);
}

/** What a folded run holds, for its row text: "⋯ 12 entries: 5 assistant, 5 tool, 2 meta". */
export function runText(model: Model, start: number, length: number): string {
  const key = `${start}:${length}`;
  let text = model.runTexts.get(key);
  if (text === undefined) {
    text = countRun(model, start, length);
    model.runTexts.set(key, text);
  }
  return text;
}

function countRun(model: Model, start: number, length: number): string {
  const counts = new Map<string, number>();
  for (let m = start, k = 0; k < length; k++, m = onlyChild(model, m)) {
    const look = nodeLook(model, m);
    counts.set(look, (counts.get(look) ?? 0) + 1);
  }
  const parts = [...counts].sort((a, b) => b[1] - a[1]).map(([look, count]) => `${count} ${look}`);
  return `⋯ ${length} entries: ${parts.join(", ")}`;
}
