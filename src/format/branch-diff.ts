/**
 * `diff`: where the branches to two entries of one session part (their last common entry), and
 * what each has after that point: its entries (described as `tree` describes them), its tool calls
 * with their outcome on that branch, the files its write/edit tools touched, and what it used.
 * Pure: it reads a `SessionTree`.
 */
import type { SessionEntry } from "../core/entry.js";
import type { SessionTree } from "../core/tree.js";
import { filesWrittenBy } from "./branch-diff-files.js";
import { describeEntry, type EntryKind } from "./describe.js";
import { addUsage, emptyUsageTally, type UsageTally, usageOf } from "./stats-usage.js";

export interface DiffEntry {
  id: string;
  parentId: string | null;
  type: string;
  /** A message's role; null for other entries. */
  role: string | null;
  kind: EntryKind;
  tag: string;
  /** The whole description: renderers cut it to one line. */
  text: string;
  timestamp: string;
}

export interface DiffToolCall {
  /** The assistant message that made the call. */
  entryId: string;
  callId: string;
  name: string;
  /** Files the call writes (write/edit tools), else []. */
  files: string[];
  /** Its result on this branch: "ok", "error", or null when the branch holds none. */
  result: "ok" | "error" | null;
}

export interface FileTouched {
  path: string;
  /** The tools that wrote it, in order of first use. */
  tools: string[];
  calls: number;
  /** Calls whose result on this branch is an error (the write may not have happened). */
  errors: number;
}

export interface DiffSide {
  /** The entry this side leads to. */
  targetId: string;
  /** The target is on the leaf's path (the current branch, or an entry above the leaf). */
  onLeafPath: boolean;
  /** Entries after the common ancestor, down to and including the target, in path order. */
  entries: DiffEntry[];
  toolCalls: DiffToolCall[];
  /** Files in order of first write. */
  files: FileTouched[];
  usage: UsageTally;
}

export interface BranchDiff {
  /** The last entry both paths share; null when the two are in unconnected trees. */
  ancestor: DiffEntry | null;
  a: DiffSide;
  b: DiffSide;
  /** Files both sides wrote (each side's version may differ). */
  filesInBoth: string[];
}

export interface BranchDiffOptions {
  /** The session was imported: zero usage means unknown (see `usageOf`). */
  imported?: boolean;
}

/** Compares the branches to `idA` and `idB` (both must be in the tree: resolve them first). */
export function branchDiff(
  tree: SessionTree,
  idA: string,
  idB: string,
  options: BranchDiffOptions = {},
): BranchDiff {
  const pathA = tree.getBranch(tree.requireEntry(idA).id);
  const pathB = tree.getBranch(tree.requireEntry(idB).id);
  let common = 0;
  while (common < pathA.length && common < pathB.length && pathA[common]?.id === pathB[common]?.id) common++;
  const leafPath = new Set(tree.getBranch().map((entry) => entry.id));
  const side = (path: SessionEntry[], targetId: string) =>
    describeSide(path.slice(common), targetId, leafPath.has(targetId), options);
  const a = side(pathA, idA);
  const b = side(pathB, idB);
  const filesOfB = new Set(b.files.map((file) => file.path));
  return {
    ancestor: common > 0 ? diffEntry(pathA[common - 1] as SessionEntry) : null,
    a,
    b,
    filesInBoth: a.files.map((file) => file.path).filter((path) => filesOfB.has(path)),
  };
}

function describeSide(
  entries: SessionEntry[],
  targetId: string,
  onLeafPath: boolean,
  options: BranchDiffOptions,
): DiffSide {
  const usage = emptyUsageTally();
  const calls: DiffToolCall[] = [];
  const results = new Map<string, boolean>();
  for (const entry of entries) {
    if (entry.type !== "message") continue;
    const message = entry.message as Record<string, unknown>;
    if (message.role === "assistant") {
      addUsage(usage, usageOf(message, options.imported === true));
      calls.push(...callsIn(entry.id, message));
    } else if (message.role === "toolResult" && typeof message.toolCallId === "string") {
      results.set(message.toolCallId, message.isError === true);
    }
  }
  for (const call of calls) {
    const isError = results.get(call.callId);
    call.result = isError === undefined ? null : isError ? "error" : "ok";
  }
  return {
    targetId,
    onLeafPath,
    entries: entries.map(diffEntry),
    toolCalls: calls,
    files: filesOf(calls),
    usage,
  };
}

function callsIn(entryId: string, message: Record<string, unknown>): DiffToolCall[] {
  const content = Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : [];
  return content
    .filter((block) => block?.type === "toolCall")
    .map((block) => {
      const name = String(block.name ?? "");
      return {
        entryId,
        callId: String(block.id ?? ""),
        name,
        files: filesWrittenBy(name, block.arguments),
        result: null,
      };
    });
}

function filesOf(calls: readonly DiffToolCall[]): FileTouched[] {
  const files = new Map<string, FileTouched>();
  for (const call of calls) {
    for (const path of call.files) {
      const file = files.get(path) ?? { path, tools: [], calls: 0, errors: 0 };
      files.set(path, file);
      if (!file.tools.includes(call.name)) file.tools.push(call.name);
      file.calls++;
      if (call.result === "error") file.errors++;
    }
  }
  return [...files.values()];
}

function diffEntry(entry: SessionEntry): DiffEntry {
  const { kind, tag, text } = describeEntry(entry);
  const role =
    entry.type === "message" ? String((entry.message as { role?: unknown }).role ?? "") || null : null;
  return {
    id: entry.id,
    parentId: entry.parentId,
    type: entry.type,
    role,
    kind,
    tag,
    text,
    timestamp: entry.timestamp,
  };
}
