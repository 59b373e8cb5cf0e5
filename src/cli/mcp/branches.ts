/**
 * `list_branches`: the path to the leaf (what the model sees) and every branch the leaf left. A
 * branch is one tip (an entry with no children) off the path: where it parts from the path, how
 * many entries it has from there, and the first thing the user asked on it. Two tips that share a
 * stretch after the fork are two branches, each counted from the fork.
 */
import type { SessionEntry } from "../../core/entry.js";
import type { SessionTree, SessionTreeNode } from "../../core/tree.js";
import { describeEntry } from "../../format/describe.js";
import { oneLine } from "../io.js";

/** How much of a message a branch row shows. */
const TEXT_WIDTH = 200;

export interface ForkPoint {
  /** The path entry the branch continues from. */
  id: string;
  /** Its position on the path (0: the root). */
  index: number;
  text: string;
}

export interface AbandonedBranch {
  /** The branch's last entry: give it to `get_context` to see what the model saw there. */
  tipId: string;
  /** Where it leaves the path; null when it is a tree of its own (another root). */
  partsFrom: ForkPoint | null;
  /** Entries after the fork point, down to and including the tip. */
  entryCount: number;
  /** The first user message after the fork, else a description of the first entry. */
  firstMessage: string;
  /** The tip's timestamp: when the branch was last worked on. */
  lastTimestamp: string;
  /** Labels on the branch's entries, by entry id. */
  labels: Record<string, string>;
}

export interface BranchesView {
  leafId: string | null;
  path: { entryCount: number; firstMessage: string; leafText: string; labels: Record<string, string> };
  abandonedCount: number;
  abandoned: AbandonedBranch[];
}

/** A node on the way down an abandoned branch, with what the branch holds so far. */
interface Frame {
  node: SessionTreeNode;
  fork: ForkPoint | null;
  count: number;
  first: string | undefined;
  firstOther: string;
  labels: Readonly<Record<string, string>>;
}

/** The path and up to `limit` abandoned branches, in path order (forks nearest the root first). */
export function listBranches(tree: SessionTree, limit: number): BranchesView {
  const leafId = tree.getLeafId();
  const path = tree.getBranch();
  const index = new Map(path.map((entry, i) => [entry.id, i]));
  const abandoned: AbandonedBranch[] = [];
  let abandonedCount = 0;
  const stack: Array<SessionTreeNode | Frame> = [...tree.getTree()].reverse();
  while (stack.length > 0) {
    const item = stack.pop() as SessionTreeNode | Frame;
    if (!("node" in item) && index.has(item.entry.id)) {
      // On the path: its children on the path are walked on, the others start branches.
      const fork = forkPoint(item.entry, index.get(item.entry.id) as number);
      for (const child of [...item.children].reverse())
        stack.push(index.has(child.entry.id) ? child : startFrame(child, fork));
      continue;
    }
    const frame = "node" in item ? item : startFrame(item, null);
    if (frame.node.children.length === 0) {
      abandonedCount++;
      if (abandoned.length < limit) abandoned.push(branchOf(frame));
      continue;
    }
    for (const child of [...frame.node.children].reverse()) stack.push(nextFrame(frame, child));
  }
  const userTexts = path.map(userText).filter((text): text is string => text !== undefined);
  const leaf = path[path.length - 1];
  return {
    leafId,
    path: {
      entryCount: path.length,
      firstMessage: userTexts[0] ?? "(no user message)",
      leafText: leaf ? oneLine(describeEntry(leaf).text || describeEntry(leaf).title, TEXT_WIDTH) : "",
      labels: labelsOn(tree, path),
    },
    abandonedCount,
    abandoned,
  };
}

function forkPoint(entry: SessionEntry, index: number): ForkPoint {
  const { text, title } = describeEntry(entry);
  return { id: entry.id, index, text: oneLine(text || title, TEXT_WIDTH) };
}

function startFrame(node: SessionTreeNode, fork: ForkPoint | null): Frame {
  const { text, title } = describeEntry(node.entry);
  return {
    node,
    fork,
    count: 1,
    first: userText(node.entry),
    firstOther: oneLine(`${title}: ${text}`, TEXT_WIDTH),
    labels: node.label ? { [node.entry.id]: node.label } : {},
  };
}

function nextFrame(parent: Frame, node: SessionTreeNode): Frame {
  return {
    node,
    fork: parent.fork,
    count: parent.count + 1,
    first: parent.first ?? userText(node.entry),
    firstOther: parent.firstOther,
    // Shared until a label appears: a long unlabelled branch copies nothing per entry.
    labels: node.label ? { ...parent.labels, [node.entry.id]: node.label } : parent.labels,
  };
}

function branchOf(frame: Frame): AbandonedBranch {
  return {
    tipId: frame.node.entry.id,
    partsFrom: frame.fork,
    entryCount: frame.count,
    firstMessage: frame.first ?? frame.firstOther,
    lastTimestamp: frame.node.entry.timestamp,
    labels: { ...frame.labels },
  };
}

function userText(entry: SessionEntry): string | undefined {
  const { kind, text } = describeEntry(entry);
  return kind === "user" && text.trim() !== "" ? oneLine(text, TEXT_WIDTH) : undefined;
}

function labelsOn(tree: SessionTree, path: readonly SessionEntry[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const entry of path) {
    const label = tree.getLabel(entry.id);
    if (label) labels[entry.id] = label;
  }
  return labels;
}
