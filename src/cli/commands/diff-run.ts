import { CURRENT_SESSION_VERSION } from "../../core/entry.js";
import { readForOpen } from "../../file/session-read.js";
import { type BranchDiff, branchDiff, type DiffEntry, type DiffSide } from "../../format/branch-diff.js";
import { isImported } from "../../format/stats-usage.js";
import type { CommandContext } from "../command-context.js";
import { UsageError } from "../exit.js";
import { type Colors, oneLine } from "../io.js";
import { sessionTitle } from "../render/session-title.js";
import { resolveEntryId, versionOnDisk } from "../resolve.js";
import { explainEntryNotFound } from "../session-id-guard.js";
import { terminalSafe } from "../terminal-text.js";
import { readablePath } from "./file-kind.js";

export interface DiffOptions {
  session?: string;
  full?: boolean;
}

/** Entries listed per side without `--full`: the first ones and the last ones. */
const HEAD_SHOWN = 10;
const TAIL_SHOWN = 5;

/**
 * Compares the branches to two entries of one session (the second defaults to the leaf): the
 * common ancestor, then each side's entries, tool calls and files written, as text or `--json`.
 */
export async function runDiff(
  ctx: CommandContext,
  refA: string,
  refB: string | undefined,
  options: DiffOptions,
): Promise<void> {
  const path = readablePath(ctx, options.session);
  const { decoded, tree } = readForOpen(path);
  noteOldVersion(ctx, path);
  const resolveRef = (ref: string) => {
    try {
      return resolveEntryId(tree, ref);
    } catch (error) {
      throw explainEntryNotFound(ctx.location, ref, error);
    }
  };
  const a = resolveRef(refA);
  const leafId = tree.getLeafId();
  if (refB === undefined && leafId === null)
    throw new UsageError("The session has no leaf: name two entries");
  const b = refB === undefined ? (leafId as string) : resolveRef(refB);
  const diff = branchDiff(tree, a, b, { imported: isImported(decoded.header) });
  if (ctx.json) return ctx.printJson({ sessionId: decoded.header.id, path, leafId, ...diff });
  const c = ctx.colors;
  ctx.print(sessionTitle(c, tree.getSessionName(), decoded.header.id, path));
  const view = { leafId, cwd: decoded.header.cwd, width: ctx.io.columns, full: options.full === true };
  ctx.print(...diffLines(c, diff, view));
  if (decoded.issues.length > 0)
    ctx.io.err(
      c.yellow(`${decoded.issues.length} issue(s) reading this session; see \`sessiontree fsck\`\n`),
    );
}

/** How a diff is shown: `cwd` (the session's) shortens the paths of files under it. */
export interface DiffView {
  leafId: string | null;
  cwd: string;
  width: number;
  full: boolean;
}

export function diffLines(c: Colors, diff: BranchDiff, view: DiffView): string[] {
  const { cwd, width } = view;
  const lines = [partingLine(c, diff, width)];
  for (const [name, side] of [
    ["A", diff.a],
    ["B", diff.b],
  ] as const) {
    lines.push("", ...sideLines(c, name, side, view));
  }
  if (diff.filesInBoth.length > 0)
    lines.push(
      "",
      `${c.bold("files written on both branches:")} ${diff.filesInBoth.map((path) => relativeTo(cwd, path)).join(", ")}`,
    );
  return lines;
}

function partingLine(c: Colors, diff: BranchDiff, width: number): string {
  const { ancestor, a, b } = diff;
  if (ancestor === null) return c.yellow("The two entries share no ancestor: they are in separate trees");
  if (a.targetId === b.targetId)
    return `A and B are the same entry, ${terminalSafe(ancestor.id)}: nothing differs`;
  const where =
    a.entries.length === 0 ? " (A is on B's path)" : b.entries.length === 0 ? " (B is on A's path)" : "";
  const head = `The branches part after ${c.cyan(terminalSafe(ancestor.id))}${where}: `;
  return head + oneLine(`${ancestor.tag} ${ancestor.text}`, Math.max(20, width - head.length));
}

function sideLines(c: Colors, name: string, side: DiffSide, view: DiffView): string[] {
  const { leafId, cwd, width, full } = view;
  const where = side.targetId === leafId ? "the leaf" : side.onLeafPath ? "on the leaf's path" : "abandoned";
  const calls = side.toolCalls.length;
  const lines = [
    `${c.bold(name)} ${c.cyan(terminalSafe(side.targetId))} ${c.dim(`(${where})`)} · ` +
      `${plural(side.entries.length, "entry", "entries")} after · ${plural(calls, "tool call", "tool calls")} · ` +
      `${plural(side.files.length, "file", "files")} written · ${tokens(side)}`,
  ];
  lines.push(...entryLines(c, side.entries, width, full));
  if (calls > 0) lines.push(`  ${c.dim("tools:")} ${toolSummary(side)}`);
  if (side.files.length > 0) lines.push(`  ${c.dim("files written:")}`);
  for (const f of side.files) {
    const how = `${terminalSafe(f.tools.join("/"))}${f.calls > 1 ? ` ×${f.calls}` : ""}${f.errors > 0 ? `, ${f.errors} failed` : ""}`;
    lines.push(`    ${relativeTo(cwd, f.path)} ${c.dim(`(${how})`)}`);
  }
  return lines;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A path under the session's directory, shown relative to it (the rest as written). */
function relativeTo(cwd: string, path: string): string {
  return terminalSafe(cwd !== "" && path.startsWith(`${cwd}/`) ? path.slice(cwd.length + 1) : path);
}

function tokens(side: DiffSide): string {
  const u = side.usage;
  const known = `${u.tokens.total.toLocaleString("en-US")} tokens`;
  return u.usageUnknown > 0
    ? `${known} (usage unknown for ${u.usageUnknown} of ${u.assistantMessages} replies)`
    : known;
}

function entryLines(c: Colors, entries: readonly DiffEntry[], width: number, full: boolean): string[] {
  if (entries.length === 0) return [c.dim("  (nothing after the common ancestor)")];
  const cut = !full && entries.length > HEAD_SHOWN + TAIL_SHOWN + 1;
  const shown = cut ? [...entries.slice(0, HEAD_SHOWN), null, ...entries.slice(-TAIL_SHOWN)] : entries;
  return shown.map((entry) => {
    if (entry === null)
      return c.dim(`  … ${entries.length - HEAD_SHOWN - TAIL_SHOWN} more entries (--full lists them)`);
    const head = terminalSafe(`  ${entry.id.slice(0, 8)}  ${entry.tag.padEnd(10)} `);
    const text = oneLine(entry.text, Math.max(20, width - head.length));
    return `${c.dim(head)}${entry.kind === "error" ? c.red(text) : text}`;
  });
}

/** "bash ×3 (1 error), edit ×2": calls by tool, with their failed results on this side. */
function toolSummary(side: DiffSide): string {
  const byName = new Map<string, { calls: number; errors: number }>();
  for (const call of side.toolCalls) {
    const row = byName.get(call.name) ?? { calls: 0, errors: 0 };
    row.calls++;
    if (call.result === "error") row.errors++;
    byName.set(call.name, row);
  }
  const summary = [...byName]
    .map(
      ([name, row]) =>
        `${name} ×${row.calls}${row.errors > 0 ? ` (${row.errors} error${row.errors === 1 ? "" : "s"})` : ""}`,
    )
    .join(", ");
  return terminalSafe(summary);
}

/** A v1 file has no entry ids: those `tree` showed are not these, until the file is migrated. */
function noteOldVersion(ctx: CommandContext, path: string): void {
  const version = versionOnDisk(path);
  if (version === null || version >= CURRENT_SESSION_VERSION) return;
  ctx.io.err(
    ctx.colors.yellow(
      `note: a v${version} file has no entry ids; they change on every read until \`sessiontree migrate ${path}\`\n`,
    ),
  );
}
