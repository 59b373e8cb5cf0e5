import { isCalendarDay } from "../../core/calendar.js";
import type { SessionHeader } from "../../core/entry.js";
import type { SessionIssue } from "../../core/issues.js";
import { treeOf } from "../../file/fsck.js";
import { candidateDirsFor } from "../../file/paths.js";
import { readSessionFile } from "../../file/read-file.js";
import { readForOpen } from "../../file/session-read.js";
import type { DecodedSession } from "../../format/jsonl/decode.js";
import {
  DEFAULT_IDLE_GAP_MS,
  isImported,
  RootStatsBuilder,
  STATS_GROUPINGS,
  type StatsGrouping,
  sessionStats,
} from "../../format/stats.js";
import { sessionFilesIn } from "../../session/locate.js";
import type { CommandContext } from "../command-context.js";
import { UsageError } from "../exit.js";
import { startProgress } from "../io.js";
import { allSessionFiles } from "../location.js";
import { sessionTitle } from "../render/session-title.js";
import { readablePath } from "./file-kind.js";
import { rootLines, sessionLines } from "./stats-text.js";

export interface StatsOptions {
  all?: boolean;
  cwd?: string;
  since?: string;
  by?: string;
  /** Minutes. */
  idle?: number;
}

/**
 * One session's stats (with a session and no `--by`), else stats over the sessions of a directory
 * (or `--all`, or the one session named) in rows grouped `--by` session, day, model or cwd.
 * `now` is what `--since 7d` counts back from.
 */
export async function runStats(
  ctx: CommandContext,
  ref: string | undefined,
  options: StatsOptions,
  now: number = Date.now(),
): Promise<void> {
  const by = groupingOf(options.by);
  if (ref !== undefined && (options.all || options.cwd !== undefined))
    throw new UsageError("--all and --cwd choose sessions: give them without a session");
  const since = options.since === undefined ? undefined : parseSince(options.since, now);
  const idleGapMs = options.idle === undefined ? DEFAULT_IDLE_GAP_MS : options.idle * 60_000;
  if (ref !== undefined && by === undefined) return oneSession(ctx, ref, since, idleGapMs);
  return manySessions(ctx, ref, options, { by: by ?? "session", since, idleGapMs });
}

function groupingOf(value: string | undefined): StatsGrouping | undefined {
  if (value === undefined) return undefined;
  if ((STATS_GROUPINGS as readonly string[]).includes(value)) return value as StatsGrouping;
  throw new UsageError(`--by takes one of ${STATS_GROUPINGS.join(", ")}; got "${value}"`);
}

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * `--since`: a time ago (`30m`, `12h`, `7d`, `2w`), a date (`2026-01-31`: local midnight) or any
 * date and time `Date.parse` reads (`2026-01-31T12:00Z`). Anything else is a usage error.
 */
export function parseSince(value: string, now: number): number {
  const ago = /^(\d+(?:\.\d+)?)([mhdw])$/.exec(value.trim());
  if (ago) return now - Number(ago[1]) * (UNIT_MS[ago[2] as string] as number);
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  const real = isCalendarDay(value);
  if (day && real) return new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])).getTime();
  const parsed = real ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(parsed))
    throw new UsageError(
      `--since takes a date (2026-01-31) or a time ago (7d, 12h, 30m, 2w); got "${value}"`,
    );
  return parsed;
}

async function oneSession(
  ctx: CommandContext,
  ref: string,
  since: number | undefined,
  idleGapMs: number,
): Promise<void> {
  const path = readablePath(ctx, ref);
  const { decoded, tree } = readForOpen(path);
  const { header } = decoded;
  const stats = sessionStats(tree, { imported: isImported(header), idleGapMs, since });
  const name = tree.getSessionName() ?? null;
  if (ctx.json) {
    return ctx.printJson({
      sessionId: header.id,
      path,
      cwd: header.cwd,
      name,
      imported: isImported(header),
      leafId: tree.getLeafId(),
      since: since === undefined ? null : new Date(since).toISOString(),
      ...stats,
      issues: decoded.issues,
    });
  }
  const c = ctx.colors;
  ctx.print(sessionTitle(c, name, header.id, path));
  if (since !== undefined) ctx.print(c.dim(`entries since ${new Date(since).toISOString()}`));
  ctx.print(...sessionLines(c, stats, ctx.io.columns));
  noteIssues(ctx, decoded.issues);
}

interface ManyOptions {
  by: StatsGrouping;
  since: number | undefined;
  idleGapMs: number;
}

async function manySessions(
  ctx: CommandContext,
  ref: string | undefined,
  options: StatsOptions,
  many: ManyOptions,
): Promise<void> {
  const cwd = options.cwd ?? ctx.io.cwd;
  const scope = ref !== undefined ? "one" : options.all ? "all" : "cwd";
  const files =
    scope === "one"
      ? [readablePath(ctx, ref)]
      : scope === "all"
        ? allSessionFiles(ctx.location)
        : candidateDirsFor(ctx.location.root, cwd).flatMap(sessionFilesIn);
  const builder = new RootStatsBuilder({ ...many, dayOf: localDay });
  const skipped: Array<{ path: string; reason: string }> = [];
  let issues = 0;
  const progress = startProgress(ctx.io, "Reading sessions", files.length);
  for (const path of files) {
    const read = readOne(path);
    progress.tick();
    if ("reason" in read) {
      skipped.push({ path, reason: read.reason });
      continue;
    }
    // pi's folders may hold sessions of other directories that encode alike: the header decides.
    if (scope === "cwd" && read.header.cwd !== cwd) continue;
    issues += read.decoded.issues.length;
    const tree = treeOf(read.decoded);
    builder.add({
      tree,
      sessionId: read.header.id,
      path,
      cwd: read.header.cwd,
      name: tree.getSessionName() ?? null,
      imported: isImported(read.header),
    });
  }
  progress.stop();
  const stats = builder.build();
  if (ctx.json)
    return ctx.printJson({
      root: ctx.location.root,
      cwd: scope === "cwd" ? cwd : null,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      ...stats,
      skipped,
      issueCount: issues,
    });
  printMany(ctx, stats, scope === "cwd" ? `of ${cwd}` : scope === "all" ? `under ${ctx.location.root}` : "");
  if (skipped.length > 0)
    ctx.io.err(
      ctx.colors.yellow(`${skipped.length} file(s) skipped, not readable as sessions (--json lists them)\n`),
    );
  if (issues > 0)
    ctx.io.err(ctx.colors.yellow(`${issues} issue(s) reading these sessions; see \`sessiontree fsck\`\n`));
}

function printMany(ctx: CommandContext, stats: ReturnType<RootStatsBuilder["build"]>, where: string): void {
  const c = ctx.colors;
  const since = stats.since === null ? "" : c.dim(` since ${stats.since}`);
  if (stats.sessions === 0) {
    const parts = ["No session", where, stats.since === null ? "" : `with entries since ${stats.since}`];
    ctx.print(parts.filter(Boolean).join(" "));
    return;
  }
  const noun = stats.sessions === 1 ? "session" : "sessions";
  ctx.print(`${c.bold(`${stats.sessions} ${noun}`)}${where ? ` ${where}` : ""}${since}`);
  ctx.print(...rootLines(c, stats, ctx.io.columns));
}

type ReadOne = { header: SessionHeader; decoded: DecodedSession } | { reason: string };

/** A session file read whole; a file that cannot be read, or has no header, says why instead. */
function readOne(path: string): ReadOne {
  try {
    const decoded = readSessionFile(path);
    if (!decoded.header) return { reason: "no session header on line 1" };
    return { header: decoded.header, decoded };
  } catch (error) {
    return { reason: (error as Error).message };
  }
}

/** The local date of a time, YYYY-MM-DD: the day `--by day` counts it on. */
function localDay(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
}

function noteIssues(ctx: CommandContext, issues: readonly SessionIssue[]): void {
  if (issues.length > 0)
    ctx.io.err(
      ctx.colors.yellow(`${issues.length} issue(s) reading this session; see \`sessiontree fsck\`\n`),
    );
}
