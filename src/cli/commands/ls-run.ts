import { statSync } from "node:fs";
import { LEAF_MARKER_TYPE, type SessionEntry } from "../../core/entry.js";
import { candidateDirsFor } from "../../file/paths.js";
import { readSessionFile } from "../../file/read-file.js";
import { sessionFilesIn } from "../../session/locate.js";
import { summarize } from "../../session/session-info.js";
import type { CommandContext } from "../command-context.js";
import { oneLine, startProgress } from "../io.js";
import { allSessionFiles } from "../location.js";

/** One row of `ls --json`. */
interface SessionRow {
  id: string;
  path: string;
  cwd: string;
  name: string | null;
  firstMessage: string;
  messageCount: number;
  entryCount: number;
  /** Branches in the tree: 1 for a linear session, 0 for an empty one. */
  branchCount: number;
  created: string;
  modified: string;
  /** Problems found reading the file (fsck tells more). */
  issueCount: number;
}

export interface LsOptions {
  all?: boolean;
  cwd?: string;
  search?: string;
  limit?: number;
}

/** Lists the sessions: rows read from each file, newest first, as a table or `--json`. */
export function runLs(ctx: CommandContext, options: LsOptions): void {
  const cwd = options.cwd ?? ctx.io.cwd;
  const files = options.all
    ? allSessionFiles(ctx.location)
    : candidateDirsFor(ctx.location.root, cwd).flatMap(sessionFilesIn);
  let rows = readRows(ctx, files, options.search).filter((r) => options.all || r.cwd === cwd);
  rows.sort((a, b) => b.modified.localeCompare(a.modified));
  if (options.limit !== undefined) rows = rows.slice(0, options.limit);
  if (ctx.json) {
    ctx.printJson(rows);
    return;
  }
  printRows(ctx, rows, options.all === true, cwd);
}

function readRows(ctx: CommandContext, files: string[], search: string | undefined): SessionRow[] {
  const rows: SessionRow[] = [];
  const needle = search?.toLowerCase();
  const progress = startProgress(ctx.io, "Reading sessions", files.length);
  for (const path of files) {
    const row = readRow(path, needle);
    if (row) rows.push(row);
    progress.tick();
  }
  progress.stop();
  return rows;
}

/** A listing row, or null for a file that is not a session or does not match the search. */
function readRow(path: string, needle: string | undefined): SessionRow | null {
  let decoded: ReturnType<typeof readSessionFile>;
  try {
    decoded = readSessionFile(path);
  } catch {
    return null;
  }
  if (!decoded.header) return null;
  const entries = decoded.entries.map((e) => e.entry);
  const info = summarize(path, decoded.header, entries, statSync(path).mtime);
  if (needle && !`${info.name ?? ""} ${info.allMessagesText}`.toLowerCase().includes(needle)) return null;
  return {
    id: info.id,
    path,
    cwd: info.cwd,
    name: info.name ?? null,
    firstMessage: info.firstMessage,
    messageCount: info.messageCount,
    entryCount: entries.length,
    branchCount: countBranches(entries),
    created: info.created.toISOString(),
    modified: info.modified.toISOString(),
    issueCount: decoded.issues.length,
  };
}

/** How many branches the tree has: one, plus one more for every extra child anywhere. */
function countBranches(entries: readonly SessionEntry[]): number {
  if (entries.length === 0) return 0;
  const children = new Map<string | null, number>();
  for (const entry of entries) {
    // Leaf markers are bookkeeping, not history.
    if (entry.type === "custom" && entry.customType === LEAF_MARKER_TYPE) continue;
    children.set(entry.parentId, (children.get(entry.parentId) ?? 0) + 1);
  }
  let branches = 1;
  for (const count of children.values()) branches += count - 1;
  return branches;
}

function printRows(ctx: CommandContext, sorted: SessionRow[], all: boolean, cwd: string): void {
  const c = ctx.colors;
  let rows = sorted;
  if (rows.length === 0) {
    ctx.print(all ? `No sessions under ${ctx.location.root}` : `No sessions of ${cwd} (try --all)`);
    return;
  }
  if (all) {
    // Group by directory, groups in order of their most recent session.
    const order = new Map<string, number>();
    for (const row of rows) if (!order.has(row.cwd)) order.set(row.cwd, order.size);
    rows = [...rows].sort((a, b) => (order.get(a.cwd) ?? 0) - (order.get(b.cwd) ?? 0));
  }
  let lastCwd: string | undefined;
  for (const row of rows) {
    if (all && row.cwd !== lastCwd) {
      ctx.print(c.bold(row.cwd || "(no directory)"));
      lastCwd = row.cwd;
    }
    const when = row.modified.slice(0, 16).replace("T", " ");
    const counts = `${row.messageCount} msgs ${row.entryCount} entries ${row.branchCount} br`;
    const issues = row.issueCount > 0 ? c.red(` ${row.issueCount} issues`) : "";
    const room = Math.max(30, ctx.io.columns - 58);
    const title = oneLine(row.name ? `${row.name} — ${row.firstMessage}` : row.firstMessage, room);
    const named = row.name
      ? c.bold(title.slice(0, row.name.length)) + c.dim(title.slice(row.name.length))
      : title;
    ctx.print(`${c.cyan(row.id.slice(0, 8))}  ${c.dim(when)}  ${counts.padEnd(28)} ${named}${issues}`);
  }
}
