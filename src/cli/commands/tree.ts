import type { Command } from "commander";
import { CURRENT_SESSION_VERSION } from "../../core/entry.js";
import type { SessionTreeNode } from "../../core/tree.js";
import type { Cli } from "../cli.js";
import { parseCount } from "../exit.js";
import { describeEntry } from "../render/describe.js";
import { pathIds, renderTree } from "../render/tree.js";
import { versionOnDisk } from "../resolve.js";

interface TreeOptions {
  full?: boolean;
  collapse?: number;
}

/** One node of `tree --json`: flat, parents before children (deep trees stay printable). */
export interface TreeRow {
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

export function register(program: Command, cli: Cli): void {
  program
    .command("tree")
    .description("draw a session's whole tree: branches, labels, the current leaf")
    .argument("[session]", "session id, id prefix or file (default: the latest of this directory)")
    .option("--full", "do not collapse long runs of plain entries")
    .option("--collapse <n>", "collapse runs of more than n plain entries (default 8)", parseCount)
    .action((ref: string | undefined, options: TreeOptions, command: Command) => {
      const ctx = cli.context(command);
      const view = ctx.withSession(ref, (manager, path) => ({
        path,
        roots: manager.getTree(),
        leafId: manager.getLeafId(),
        issues: manager.getIssues(),
        sessionId: manager.getSessionId(),
        name: manager.getSessionName(),
        count: manager.getEntries().length,
      }));
      const { path, roots, leafId, issues, sessionId, name, count } = view;
      if (ctx.json) {
        return ctx.printJson({
          sessionId,
          path,
          leafId,
          name: name ?? null,
          nodes: flatten(roots, leafId),
          issues,
        });
      }
      const c = ctx.colors;
      ctx.print(`${c.bold(name ?? sessionId)} ${c.dim(`${count} entries · ${path}`)}`);
      if (roots.length === 0) ctx.print(c.dim("(empty session)"));
      const collapseOver = options.full ? 0 : (options.collapse ?? 8);
      const lines = renderTree(roots, { leafId, colors: c, width: ctx.io.columns, collapseOver });
      ctx.io.out(lines.length > 0 ? `${lines.join("\n")}\n` : "");
      const version = versionOnDisk(path);
      if (version !== null && version < CURRENT_SESSION_VERSION) {
        ctx.io.err(
          c.yellow(
            `note: a v${version} file has no entry ids; these change on every read until \`sessiontree migrate ${path}\`\n`,
          ),
        );
      }
      if (issues.length > 0)
        ctx.io.err(
          `${c.yellow(`${issues.length} issue(s) reading this session; see \`sessiontree fsck\``)}\n`,
        );
    });
}

function flatten(roots: readonly SessionTreeNode[], leafId: string | null): TreeRow[] {
  const onPath = pathIds(roots, leafId);
  const rows: TreeRow[] = [];
  const stack = [...roots].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as SessionTreeNode;
    const { kind, tag, text } = describeEntry(node.entry);
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
