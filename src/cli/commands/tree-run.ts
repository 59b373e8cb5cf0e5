import { CURRENT_SESSION_VERSION } from "../../core/entry.js";
import type { SessionTreeNode } from "../../core/tree.js";
import { describeEntry, subagentNames } from "../../format/describe.js";
import type { CommandContext } from "../command-context.js";
import { sessionTitle } from "../render/session-title.js";
import { pathIds, renderTree } from "../render/tree.js";
import { versionOnDisk } from "../resolve.js";
import { readableSession } from "./file-kind.js";
import { drawThroughIndex, type TreeDrawing } from "./tree-indexed.js";

export interface TreeOptions {
  full?: boolean;
  collapse?: number;
}

/** One node of `tree --json`: flat, parents before children (deep trees stay printable). */
interface TreeRow {
  id: string;
  parentId: string | null;
  type: string;
  kind: string;
  tag: string;
  text: string;
  timestamp: string;
  label: string | null;
  onPath: boolean;
  isLeaf: boolean;
  children: string[];
}

/**
 * Draws the tree (or prints it as flat `--json` rows); reading problems are a note on stderr. A
 * collapsed drawing reads only the lines it shows, through the sidecar index, when the index can
 * answer as a whole read would (tree-indexed.ts); `--json` and `--full` need every entry.
 */
export async function runTree(
  ctx: CommandContext,
  ref: string | undefined,
  options: TreeOptions,
): Promise<void> {
  const readable = readableSession(ctx, ref);
  const collapseOver = options.full ? 0 : (options.collapse ?? 8);
  const c = ctx.colors;
  const drawing = { colors: c, width: ctx.io.columns, collapseOver };
  const indexed = ctx.json || collapseOver <= 0 ? null : drawThroughIndex(readable.path, drawing);
  if (indexed !== null) {
    printDrawing(ctx, readable.path, indexed);
    noteOldVersion(ctx, readable.path, readable.version);
    return;
  }
  const view = await ctx.withSession(
    readable.path,
    (manager, path) => {
      const entries = manager.getEntries();
      return {
        path,
        roots: manager.getTree(),
        leafId: manager.getLeafId(),
        issues: manager.getIssues(),
        sessionId: manager.getSessionId(),
        name: manager.getSessionName(),
        count: entries.length,
        subagents: subagentNames(entries),
      };
    },
    { whole: true },
  );
  const { path, roots, leafId, issues, sessionId, name, count, subagents } = view;
  if (ctx.json) {
    return ctx.printJson({
      sessionId,
      path,
      leafId,
      name: name ?? null,
      nodes: flatten(roots, leafId, subagents),
      issues,
    });
  }
  const lines = renderTree(roots, { ...drawing, leafId, subagents });
  printDrawing(ctx, path, { sessionId, name, count, lines });
  noteOldVersion(ctx, path, readable.version);
  if (issues.length > 0)
    ctx.io.err(`${c.yellow(`${issues.length} issue(s) reading this session; see \`sessiontree fsck\``)}\n`);
}

function printDrawing(
  ctx: CommandContext,
  path: string,
  { sessionId, name, count, lines }: TreeDrawing,
): void {
  const c = ctx.colors;
  ctx.print(sessionTitle(c, name, sessionId, `${count} entries · ${path}`));
  if (lines.length === 0) ctx.print(c.dim("(empty session)"));
  ctx.io.out(lines.length > 0 ? `${lines.join("\n")}\n` : "");
}

/**
 * A v1 file has no entry ids: the ids just shown change on every read until it is migrated.
 * `stated` is the version its header was seen to state, if it was (else the file is read again).
 */
function noteOldVersion(ctx: CommandContext, path: string, stated: number | null): void {
  const version = stated ?? versionOnDisk(path);
  if (version === null || version >= CURRENT_SESSION_VERSION) return;
  ctx.io.err(
    ctx.colors.yellow(
      `note: a v${version} file has no entry ids; these change on every read until \`sessiontree migrate ${path}\`\n`,
    ),
  );
}

function flatten(
  roots: readonly SessionTreeNode[],
  leafId: string | null,
  subagents: ReadonlyMap<string, string>,
): TreeRow[] {
  const onPath = pathIds(roots, leafId);
  const rows: TreeRow[] = [];
  const stack = [...roots].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as SessionTreeNode;
    const { kind, tag, text } = describeEntry(node.entry, { subagent: subagents.get(node.entry.id) });
    rows.push({
      id: node.entry.id,
      parentId: node.entry.parentId,
      type: node.entry.type,
      kind,
      tag,
      text,
      timestamp: node.entry.timestamp,
      label: node.label ?? null,
      onPath: onPath.has(node.entry.id),
      isLeaf: node.entry.id === leafId,
      children: node.children.map((child) => child.entry.id),
    });
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as SessionTreeNode);
  }
  return rows;
}
