import type { SessionEntry } from "../../core/entry.js";
import { messageText } from "../../core/messages.js";
import type { SessionTreeNode } from "../../core/tree.js";
import {
  type DescribeContext,
  describeEntry,
  type EntryDescription,
  type EntryKind,
} from "../../format/describe.js";
import type { Colors } from "../io.js";
import { oneLine } from "../io.js";
import { terminalSafe } from "../terminal-text.js";

export interface TreeRenderOptions {
  leafId: string | null;
  colors: Colors;
  /** Line width; text is cut to fit. */
  width: number;
  /**
   * Runs of more than this many plain entries in a row (no branch, label, summary or leaf) are
   * collapsed to their first and last two. 0 shows everything.
   */
  collapseOver: number;
  /** Claude Code sidechain entries' subagent names (`subagentNames` over the session). */
  subagents?: ReadonlyMap<string, string>;
}

/**
 * What drawing reads of a tree: nodes by number, each one's children in drawing order, and the few
 * facts of a node that decide whether a run of nodes is collapsed. An entry is asked for only when
 * its line is drawn, so a tree read through the sidecar index parses only the lines shown.
 */
export interface TreeShape {
  /** Nodes are numbered 0 … count - 1. */
  readonly count: number;
  readonly roots: ArrayLike<number>;
  /** The leaf's node, -1 for none. */
  readonly leaf: number;
  children(node: number): ArrayLike<number>;
  /** The parent node, -1 for a root. */
  parent(node: number): number;
  id(node: number): string;
  /** The entry's type ("" when not known without reading it: a type sessiontree does not know). */
  type(node: number): string;
  label(node: number): string | undefined;
}

/** A line of a drawing: a node's (and whether it is on the leaf's path), or how many nodes were collapsed there. */
export type TreeLine = { prefix: string; node: number; onPath: boolean } | { prefix: string; elided: number };

/** The symbols that tell entries apart without colour: on the leaf's path, off it, the leaf itself. */
const SYMBOLS = { onPath: "●", offPath: "○", leaf: "◉" } as const;

const KEEP = 2;

interface Frame {
  node: number;
  /** Prefix drawn before the connector of this run's first line. */
  indent: string;
  connector: "" | "├─ " | "└─ ";
}

/**
 * Draws a session tree as text lines, iteratively (a 100,000-entry chain is fine). A chain of
 * single children stays in one column; where an entry has several children, each child opens a
 * branch line. The leaf's path is marked ●, abandoned branches ○ (and dimmed), the leaf ◉.
 */
export function renderTree(roots: readonly SessionTreeNode[], options: TreeRenderOptions): string[] {
  const forest = forestShape(roots, options.leafId);
  return drawTree(forest, layoutTree(forest, options.collapseOver), forest.entry, options);
}

/** The lines of a drawing, before any entry is read: which nodes are drawn, where, and what is collapsed. */
export function layoutTree(shape: TreeShape, collapseOver: number): TreeLine[] {
  const onPath = pathNodes(shape);
  const lines: TreeLine[] = [];
  const stack: Frame[] = [];
  for (let i = shape.roots.length - 1; i >= 0; i--)
    stack.push({ node: shape.roots[i] as number, indent: "", connector: "" });
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    const run = linearRun(shape, frame.node);
    const inner = frame.indent + (frame.connector === "├─ " ? "│  " : frame.connector === "└─ " ? "   " : "");
    collapse(shape, run, collapseOver, onPath).forEach((item, i) => {
      const prefix = i === 0 ? frame.indent + frame.connector : inner;
      lines.push(
        typeof item === "number"
          ? { prefix, node: item, onPath: onPath[item] === 1 }
          : { prefix, elided: item.elided },
      );
    });
    const children = shape.children(run[run.length - 1] as number);
    for (let i = children.length - 1; i >= 0; i--) {
      const connector = i === children.length - 1 ? "└─ " : "├─ ";
      stack.push({ node: children[i] as number, indent: inner, connector });
    }
  }
  return lines;
}

/** The text of a drawing's lines; `entryOf` gives the entry of each node drawn. */
export function drawTree(
  shape: TreeShape,
  lines: readonly TreeLine[],
  entryOf: (node: number) => SessionEntry,
  options: TreeRenderOptions,
): string[] {
  return lines.map((line) =>
    "elided" in line
      ? elided(line.prefix, line.elided, options)
      : nodeLine(line.prefix, entryOf(line.node), shape.label(line.node), options, {
          isLeaf: line.node === shape.leaf,
          on: line.onPath,
        }),
  );
}

/** The ids on the path from a root to the leaf. */
export function pathIds(roots: readonly SessionTreeNode[], leafId: string | null): Set<string> {
  const forest = forestShape(roots, leafId);
  const ids = new Set<string>();
  for (let node = forest.leaf; node >= 0; node = forest.parent(node)) ids.add(forest.id(node));
  return ids;
}

/** 1 for each node on the path from a root to the leaf. */
function pathNodes(shape: TreeShape): Uint8Array {
  const flags = new Uint8Array(shape.count);
  for (let node = shape.leaf; node >= 0 && flags[node] !== 1; node = shape.parent(node)) flags[node] = 1;
  return flags;
}

/** The forest's nodes numbered breadth first (no recursion), with their entries. */
function forestShape(
  roots: readonly SessionTreeNode[],
  leafId: string | null,
): TreeShape & { entry: (node: number) => SessionEntry } {
  const nodes = [...roots];
  const parents: number[] = roots.map(() => -1);
  const children: number[][] = [];
  for (let n = 0; n < nodes.length; n++) {
    const numbers: number[] = [];
    for (const child of (nodes[n] as SessionTreeNode).children) {
      numbers.push(nodes.length);
      nodes.push(child);
      parents.push(n);
    }
    children.push(numbers);
  }
  const node = (n: number) => nodes[n] as SessionTreeNode;
  return {
    count: nodes.length,
    roots: roots.map((_, n) => n),
    leaf: leafId === null ? -1 : nodes.findIndex((candidate) => candidate.entry.id === leafId),
    children: (n) => children[n] as number[],
    parent: (n) => parents[n] as number,
    id: (n) => node(n).entry.id,
    type: (n) => node(n).entry.type,
    label: (n) => node(n).label,
    entry: (n) => node(n).entry,
  };
}

/** A node and its single-child descendants, up to the first node with zero or several children. */
function linearRun(shape: TreeShape, start: number): number[] {
  const run = [start];
  let children = shape.children(start);
  while (children.length === 1) {
    const node = children[0] as number;
    run.push(node);
    children = shape.children(node);
  }
  return run;
}

/**
 * The run with long stretches of plain entries replaced by how many were left out. A stretch keeps
 * its first and last two, so one of five or fewer is never cut, whatever `collapseOver` says.
 */
function collapse(
  shape: TreeShape,
  run: number[],
  collapseOver: number,
  onPath: Uint8Array,
): Array<number | { elided: number }> {
  if (collapseOver <= 0) return run;
  const out: Array<number | { elided: number }> = [];
  let stretch: number[] = [];
  const flush = () => {
    if (stretch.length > collapseOver && stretch.length > 2 * KEEP + 1) {
      out.push(...stretch.slice(0, KEEP), { elided: stretch.length - 2 * KEEP }, ...stretch.slice(-KEEP));
    } else out.push(...stretch);
    stretch = [];
  };
  run.forEach((node, i) => {
    const plain = i > 0 && i < run.length - 1 && isPlain(shape, node);
    if (plain && (stretch.length === 0 || onPath[node] === onPath[stretch[0] as number])) {
      stretch.push(node);
      return;
    }
    flush();
    if (plain) stretch.push(node);
    else out.push(node);
  });
  flush();
  return out;
}

const NOTABLE: ReadonlySet<string> = new Set(["compaction", "branch_summary", "session_info"]);

function isPlain(shape: TreeShape, node: number): boolean {
  return node !== shape.leaf && !shape.label(node) && !NOTABLE.has(shape.type(node));
}

function nodeLine(
  prefix: string,
  entry: SessionEntry,
  labelText: string | undefined,
  options: TreeRenderOptions,
  { isLeaf, on }: { isLeaf: boolean; on: boolean },
): string {
  const c = options.colors;
  const symbol = isLeaf ? SYMBOLS.leaf : on ? SYMBOLS.onPath : SYMBOLS.offPath;
  const context = { subagent: options.subagents?.get(entry.id) };
  const description = describeEntry(entry, context);
  const { kind } = description;
  const text = treeText(entry, context, description);
  // Ids, tags and labels are the session's text too: shown, not obeyed (see terminal-text.ts).
  const id = terminalSafe(entry.id);
  const tag = terminalSafe(description.tag);
  const label = labelText ? ` [${oneLine(labelText, Number.POSITIVE_INFINITY)}]` : "";
  const leafMark = isLeaf ? " ← leaf" : "";
  const head = `${prefix}${symbol} ${id} ${tag}`;
  const room = options.width - head.length - label.length - leafMark.length - 1;
  const body = text && room > 8 ? ` ${oneLine(text, room)}` : "";
  const styledSymbol = isLeaf ? c.bold(c.yellow(symbol)) : on ? symbol : c.dim(symbol);
  const line = `${c.dim(prefix)}${styledSymbol} ${c.dim(id)} ${colorFor(kind, c)(tag)}${on ? body : c.dim(body)}`;
  return line + (label ? c.bold(c.magenta(label)) : "") + (isLeaf ? c.bold(c.yellow(leafMark)) : "");
}

/**
 * The entry's text for its line. An assistant reply that is only thinking (and tool calls) shows its
 * thinking, marked `thinking:` so that without colours it never reads as what the model said.
 */
export function treeText(
  entry: SessionEntry,
  context: DescribeContext = {},
  { text }: EntryDescription = describeEntry(entry, context),
): string {
  if (entry.type !== "message") return text;
  const message = entry.message as { role?: unknown; content?: unknown };
  if (message.role !== "assistant" || !Array.isArray(message.content) || messageText(message).trim())
    return text;
  const thinking = (message.content as Array<{ type?: unknown; thinking?: unknown }>)
    .filter((block) => block?.type === "thinking" && typeof block.thinking === "string")
    .map((block) => String(block.thinking).trim())
    .filter(Boolean)
    .join(" ");
  // The tool calls first: a line cut to the terminal's width keeps them.
  return thinking ? `${text ? `${text} · ` : ""}thinking: ${thinking}` : text;
}

function elided(prefix: string, count: number, options: TreeRenderOptions): string {
  const c = options.colors;
  return `${c.dim(prefix)}${c.dim(`┆ … ${count} more entr${count === 1 ? "y" : "ies"} …`)}`;
}

function colorFor(kind: EntryKind, c: Colors): (text: string) => string {
  switch (kind) {
    case "user":
      return (t) => c.bold(c.cyan(t));
    case "assistant":
      return c.green;
    case "toolResult":
      return c.yellow;
    case "error":
      return c.red;
    case "compaction":
    case "branchSummary":
      return (t) => c.bold(c.magenta(t));
    case "customMessage":
      return c.blue;
    case "setting":
    case "label":
    case "name":
      return c.blue;
    default:
      return c.gray;
  }
}
