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

/** The symbols that tell entries apart without colour: on the leaf's path, off it, the leaf itself. */
const SYMBOLS = { onPath: "●", offPath: "○", leaf: "◉" } as const;

const KEEP = 2;

interface Frame {
  node: SessionTreeNode;
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
  const onPath = pathIds(roots, options.leafId);
  const lines: string[] = [];
  const stack: Frame[] = [...roots].reverse().map((node) => ({ node, indent: "", connector: "" as const }));
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    const run = linearRun(frame.node);
    const inner = frame.indent + (frame.connector === "├─ " ? "│  " : frame.connector === "└─ " ? "   " : "");
    const shown = collapse(run, options, onPath);
    shown.forEach((item, i) => {
      const prefix = i === 0 ? frame.indent + frame.connector : inner;
      lines.push(
        typeof item === "number" ? elided(prefix, item, options) : nodeLine(prefix, item, options, onPath),
      );
    });
    const last = run[run.length - 1] as SessionTreeNode;
    const children = last.children;
    for (let i = children.length - 1; i >= 0; i--) {
      const connector = i === children.length - 1 ? "└─ " : "├─ ";
      stack.push({ node: children[i] as SessionTreeNode, indent: inner, connector });
    }
  }
  return lines;
}

/** The ids on the path from a root to the leaf. */
export function pathIds(roots: readonly SessionTreeNode[], leafId: string | null): Set<string> {
  const parent = new Map<string, string | null>();
  const stack = [...roots];
  while (stack.length > 0) {
    const node = stack.pop() as SessionTreeNode;
    for (const child of node.children) {
      parent.set(child.entry.id, node.entry.id);
      stack.push(child);
    }
  }
  const ids = new Set<string>();
  for (let id = leafId; id !== null && id !== undefined && !ids.has(id); id = parent.get(id) ?? null)
    ids.add(id);
  return ids;
}

/** A node and its single-child descendants, up to the first node with zero or several children. */
function linearRun(start: SessionTreeNode): SessionTreeNode[] {
  const run = [start];
  let node = start;
  while (node.children.length === 1) {
    node = node.children[0] as SessionTreeNode;
    run.push(node);
  }
  return run;
}

/** The run with long stretches of plain entries replaced by how many were left out. */
function collapse(
  run: SessionTreeNode[],
  options: TreeRenderOptions,
  onPath: Set<string>,
): Array<SessionTreeNode | number> {
  if (options.collapseOver <= 0) return run;
  const out: Array<SessionTreeNode | number> = [];
  let stretch: SessionTreeNode[] = [];
  const flush = () => {
    if (stretch.length > options.collapseOver) {
      out.push(...stretch.slice(0, KEEP), stretch.length - 2 * KEEP, ...stretch.slice(-KEEP));
    } else out.push(...stretch);
    stretch = [];
  };
  run.forEach((node, i) => {
    const plain = i > 0 && i < run.length - 1 && isPlain(node, options.leafId);
    if (
      plain &&
      (stretch.length === 0 || onPath.has(node.entry.id) === onPath.has(stretch[0]?.entry.id ?? ""))
    ) {
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

function isPlain(node: SessionTreeNode, leafId: string | null): boolean {
  return node.entry.id !== leafId && !node.label && !NOTABLE.has(node.entry.type);
}

function nodeLine(
  prefix: string,
  node: SessionTreeNode,
  options: TreeRenderOptions,
  onPath: Set<string>,
): string {
  const c = options.colors;
  const { id } = node.entry;
  const isLeaf = id === options.leafId;
  const on = onPath.has(id);
  const symbol = isLeaf ? SYMBOLS.leaf : on ? SYMBOLS.onPath : SYMBOLS.offPath;
  const context = { subagent: options.subagents?.get(id) };
  const description = describeEntry(node.entry, context);
  const { kind, tag } = description;
  const text = treeText(node.entry, context, description);
  const label = node.label ? ` [${node.label}]` : "";
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
