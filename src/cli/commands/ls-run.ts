import { statSync } from "node:fs";
import { resolve } from "node:path";
import { CURRENT_SESSION_VERSION } from "../../core/entry.js";
import { readSessionFileOrNull } from "../../file/read-file.js";
import { CatalogPass } from "../../session/list.js";
import { type ListingShape, listingShapeOf, visibleEntries } from "../../session/listing-shape.js";
import { type SessionInfo, summarize } from "../../session/session-info.js";
import type { CommandContext } from "../command-context.js";
import { UsageError } from "../exit.js";
import { oneLine, startProgress } from "../io.js";
import { allSessionFiles } from "../location.js";
import { byListingOrder, isSessionOf, sessionFilesOfCwd, sessionIdsOf, versionOnDisk } from "../resolve.js";
import { terminalSafe } from "../terminal-text.js";
import type { EntryMatch, MatchEntries } from "./ls-entries.js";

/** One row of `ls --json`. */
interface SessionRow {
  id: string;
  path: string;
  cwd: string;
  name: string | null;
  firstMessage: string;
  /** Message entries in every branch (pi's `messageCount`). */
  messageCount: number;
  /** Entries in every branch, as `tree` counts them (hidden leaf markers left out). */
  entryCount: number;
  /** Branches in the tree: 1 for a linear session, 0 for an empty one. */
  branchCount: number;
  created: string;
  modified: string;
  /** Problems found reading the file (fsck tells more). */
  issueCount: number;
  /** With `--search --entries`: the entries that hold the text. */
  matches?: EntryMatch[];
}

export interface LsOptions {
  all?: boolean;
  cwd?: string;
  search?: string;
  entries?: boolean;
  limit?: number;
}

interface Listed {
  info: SessionInfo;
  row: SessionRow;
}

/**
 * Lists the sessions: rows read from each file, in `byListingOrder` (newest activity first, the
 * order that picks "the latest session" for the other commands), as a table or `--json`.
 */
export async function runLs(ctx: CommandContext, options: LsOptions): Promise<void> {
  if (options.entries && options.search === undefined)
    throw new UsageError("--entries lists the entries that match a search: give --search TEXT too");
  // Loaded only for --entries: a plain listing stays as small as it was.
  const match = options.entries ? (await import("./ls-entries.js")).matchingEntries : undefined;
  const cwd = options.cwd === undefined ? ctx.io.cwd : resolve(ctx.io.cwd, options.cwd);
  const files = options.all ? allSessionFiles(ctx.location) : sessionFilesOfCwd(ctx.location, cwd);
  let listed = readRows(ctx, files, options.search, match).filter(
    (r) => options.all || isSessionOf(r.info, cwd),
  );
  listed.sort((a, b) => byListingOrder(a.info, b.info));
  const found = listed.length;
  if (options.limit !== undefined) listed = listed.slice(0, options.limit);
  const rows = listed.map((l) => l.row);
  if (ctx.json) {
    ctx.printJson(rows);
    return;
  }
  if (found === 0) ctx.print(nothingListed(ctx, options, cwd));
  else printRows(ctx, rows, options.all === true);
}

/** What an empty listing says: no sessions at all, or none that matches the search (exit 0). */
function nothingListed(ctx: CommandContext, options: LsOptions, cwd: string): string {
  const where = options.all ? `under ${ctx.location.root}` : `of ${cwd}`;
  if (options.search !== undefined)
    return `No session matches "${options.search}" (sessions ${where}${options.all ? "" : "; try --all"})`;
  return options.all ? `No sessions under ${ctx.location.root}` : `No sessions of ${cwd} (try --all)`;
}

function readRows(
  ctx: CommandContext,
  files: string[],
  search: string | undefined,
  match: MatchEntries | undefined,
): Listed[] {
  const listed: Listed[] = [];
  const needle = search?.toLowerCase();
  const progress = startProgress(ctx.io, "Reading sessions", files.length);
  const pass = new CatalogPass();
  for (const path of files) {
    const row = match ? readRowWhole(path, needle, match) : readRowCataloged(pass, path, needle);
    if (row) listed.push(row);
    progress.tick();
  }
  pass.save();
  progress.stop();
  return listed;
}

/**
 * A listing row from the folder's catalog (session/catalog.ts): a file that did not change since
 * the last listing is only stat'ed. Null for a file that is not a session or does not match.
 */
function readRowCataloged(pass: CatalogPass, path: string, needle: string | undefined): Listed | null {
  const info = pass.info(path);
  if (!info || !matches(info, needle)) return null;
  const shape = pass.shape(path);
  return shape ? { info, row: rowOf(path, info, shape) } : null;
}

/** A listing row from a whole read, for `--entries` (which shows the matching entries themselves). */
function readRowWhole(path: string, needle: string | undefined, match: MatchEntries): Listed | null {
  const decoded = readSessionFileOrNull(path);
  if (!decoded?.header) return null;
  const entries = decoded.entries.map((e) => e.entry);
  const info = summarize(path, decoded.header, entries, statSync(path).mtime);
  if (!matches(info, needle)) return null;
  const row = rowOf(path, info, listingShapeOf(entries, decoded.issues.length));
  if (needle) row.matches = match(visibleEntries(entries), needle);
  return { info, row };
}

function matches(info: SessionInfo, needle: string | undefined): boolean {
  return !needle || `${info.name ?? ""} ${info.allMessagesText}`.toLowerCase().includes(needle);
}

function rowOf(path: string, info: SessionInfo, shape: ListingShape): SessionRow {
  return {
    id: info.id,
    path,
    cwd: info.cwd,
    name: info.name ?? null,
    firstMessage: info.firstMessage,
    messageCount: info.messageCount,
    entryCount: shape.entryCount,
    branchCount: shape.branchCount,
    created: isoOrEmpty(info.created),
    modified: isoOrEmpty(info.modified),
    issueCount: shape.issueCount,
  };
}

function isoOrEmpty(date: Date): string {
  return Number.isNaN(date.getTime()) ? "" : date.toISOString();
}

/**
 * The shortest prefix of each listed id (8 characters at least) that names no other session of
 * the location, so that a prefix copied from the table is one `tree`, `show` or `-s` accepts. An id
 * that two files share is shown whole, and listed in `shared`: only a path names one of them.
 */
function shortIds(
  ctx: CommandContext,
  rows: readonly SessionRow[],
): { shown: Map<string, string>; shared: Set<string> } {
  const pathsOf = new Map<string, Set<string>>();
  const note = (id: string | undefined, path: string) => {
    if (id) pathsOf.set(id, (pathsOf.get(id) ?? new Set()).add(path));
  };
  for (const { id, path } of sessionIdsOf(ctx.location)) note(id, path);
  for (const row of rows) note(row.id, row.path);
  const sorted = [...pathsOf.keys()].sort();
  const position = new Map(sorted.map((id, i) => [id, i]));
  const shown = new Map<string, string>();
  const shared = new Set<string>();
  for (const { id } of rows) {
    if ((pathsOf.get(id)?.size ?? 0) > 1) shared.add(id);
    const i = position.get(id) as number;
    const common = Math.max(commonLength(id, sorted[i - 1]), commonLength(id, sorted[i + 1]));
    shown.set(id, shared.has(id) ? id : id.slice(0, Math.max(8, common + 1)));
  }
  return { shown, shared };
}

function commonLength(a: string, b: string | undefined): number {
  if (b === undefined) return 0;
  let n = 0;
  while (n < a.length && a[n] === b[n]) n++;
  return n;
}

/** The table: columns sized to their widest cell, so any id and any count lines up. */
function printRows(ctx: CommandContext, sorted: SessionRow[], all: boolean): void {
  const c = ctx.colors;
  let rows = sorted;
  if (all) {
    // Group by directory, groups in order of their most recent session.
    const order = new Map<string, number>();
    for (const row of rows) if (!order.has(row.cwd)) order.set(row.cwd, order.size);
    rows = [...rows].sort((a, b) => (order.get(a.cwd) ?? 0) - (order.get(b.cwd) ?? 0));
  }
  const { shown: ids, shared } = shortIds(ctx, rows);
  const width = (values: number[]) => Math.max(...values.map((v) => String(v).length));
  const idWidth = Math.max(...[...ids.values()].map((id) => id.length));
  const [msgs, entries, branches] = [
    width(rows.map((r) => r.messageCount)),
    width(rows.map((r) => r.entryCount)),
    width(rows.map((r) => r.branchCount)),
  ];
  let lastCwd: string | undefined;
  for (const row of rows) {
    if (all && row.cwd !== lastCwd) {
      ctx.print(c.bold(terminalSafe(row.cwd) || "(no directory)"));
      lastCwd = row.cwd;
    }
    const id = (ids.get(row.id) as string).padEnd(idWidth);
    const when = (row.modified.slice(0, 16).replace("T", " ") || "?").padEnd(16);
    const counts = `${pad(row.messageCount, msgs)} msgs  ${pad(row.entryCount, entries)} entries  ${pad(row.branchCount, branches)} br`;
    const notes =
      (row.issueCount > 0 ? ` ${row.issueCount} issues` : "") +
      (shared.has(row.id) ? " (another file has this id: name it by path)" : "");
    const head = `${id}  ${when}  ${counts}  `;
    const room = Math.max(20, ctx.io.columns - head.length - notes.length);
    // The name as the title shows it (one line, control characters shown), to bold just it.
    const name = row.name ? oneLine(row.name, Number.POSITIVE_INFINITY) : "";
    const title = oneLine(name ? `${name} — ${firstText(row)}` : firstText(row), room);
    const named = name ? c.bold(title.slice(0, name.length)) + c.dim(title.slice(name.length)) : title;
    ctx.print(`${c.cyan(id)}  ${c.dim(when)}  ${counts}  ${named}${c.red(notes)}`);
    if (row.matches) printMatches(ctx, row, row.matches);
  }
}

function pad(n: number, width: number): string {
  return String(n).padStart(width);
}

/** pi's "(no messages)" beside a non-zero count would contradict it: say what is missing. */
function firstText(row: SessionRow): string {
  if (row.messageCount > 0 && row.firstMessage === "(no messages)") return "(no user message with text)";
  return row.firstMessage;
}

const MATCHES_SHOWN = 10;

/** Under a session's row, the entries that hold the searched text, each with a snippet. */
function printMatches(ctx: CommandContext, row: SessionRow, matches: readonly EntryMatch[]): void {
  const c = ctx.colors;
  const version = matches.length > 0 ? versionOnDisk(row.path) : null;
  if (version !== null && version < CURRENT_SESSION_VERSION)
    ctx.print(
      c.yellow(
        `    (a v${version} file: these entry ids change on every read until \`sessiontree migrate\`)`,
      ),
    );
  for (const m of matches.slice(0, MATCHES_SHOWN)) {
    const end = m.matchStart + m.matchLength;
    // Cut where the match is, then each piece made safe (an escape shown is longer than it was).
    const [before, found, after] = [
      m.snippet.slice(0, m.matchStart),
      m.snippet.slice(m.matchStart, end),
      m.snippet.slice(end),
    ].map(terminalSafe);
    const [id, role] = [m.entryId, m.role.padEnd(9)].map(terminalSafe);
    ctx.print(`    ${c.dim(id)}  ${role}  ${before}${c.bold(c.yellow(found))}${after}`);
  }
  if (matches.length > MATCHES_SHOWN)
    ctx.print(c.dim(`    … ${matches.length - MATCHES_SHOWN} more (--json lists them all)`));
}
