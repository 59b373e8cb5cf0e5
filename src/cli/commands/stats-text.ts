/** How `stats` reads for people: a block of totals, then branches, models, tools or grouped rows. */

import type {
  AbandonedBranch,
  RootStats,
  SessionStats,
  StatsGroup,
  StatsSummary,
  Tally,
  UsageTally,
} from "../../format/stats.js";
import { dollars, duration, int, percent, unknownNotes } from "../../format/stats-words.js";
import { type Colors, oneLine } from "../io.js";
import { terminalSafe } from "../terminal-text.js";

const LABEL_WIDTH = 10;

function minutes(ms: number): string {
  return `${Number((ms / 60_000).toFixed(2))} min`;
}

/** A local date and time, minutes precision: what people read times in. */
export function localTime(iso: string | null): string {
  if (iso === null) return "?";
  const d = new Date(iso);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** Whether any message of the tally has a cost, or it has none at all (then $0.00 is true). */
function isPriced(tally: UsageTally): boolean {
  return tally.assistantMessages === 0 || tally.assistantMessages > tally.usageUnknown + tally.costUnknown;
}

/** The cost of a tally, or "cost unknown" when no message in it has one. */
function cost(tally: UsageTally): string {
  return isPriced(tally) ? dollars(tally.cost.total) : "cost unknown";
}

function line(c: Colors, label: string, text: string): string {
  return `${c.dim(label.padEnd(LABEL_WIDTH))} ${text}`;
}

/** The totals every view starts with: entries, time, tokens, cost, what is unknown, path vs abandoned. */
export function summaryLines(
  c: Colors,
  s: StatsSummary,
  more: { branchCount?: number; sessions?: number } = {},
): string[] {
  const t = s.total;
  const { branchCount, sessions = 1 } = more;
  const wall = `wall ${duration(s.time.wallMs)}${sessions > 1 ? " (each session's, summed)" : ""}`;
  const lines = [
    line(
      c,
      "entries",
      `${int(s.entries)} (${int(s.leafPath.entries)} on the leaf's path, ${int(s.abandoned.entries)} abandoned)`,
    ),
    line(
      c,
      "time",
      `${localTime(s.time.first)} → ${localTime(s.time.last)} · ${wall} · ` +
        `active ${duration(s.time.activeMs)} (gaps over ${minutes(s.time.idleGapMs)} left out as idle)`,
    ),
    line(
      c,
      "tokens",
      `${c.bold(int(t.tokens.total))} · input ${int(t.tokens.input)} · output ${int(t.tokens.output)} · ` +
        `cache read ${int(t.tokens.cacheRead)} · cache write ${int(t.tokens.cacheWrite)}`,
    ),
    line(
      c,
      "cost",
      isPriced(t)
        ? `${c.bold(dollars(t.cost.total))} (input ${dollars(t.cost.input)} · output ${dollars(t.cost.output)} · ` +
            `cache read ${dollars(t.cost.cacheRead)} · cache write ${dollars(t.cost.cacheWrite)})`
        : "unknown",
    ),
    ...unknownNoteLines(c, t),
    line(
      c,
      "leaf path",
      `${int(s.leafPath.entries)} entries · ${int(s.leafPath.tokens.total)} tokens · ${cost(s.leafPath)}`,
    ),
    line(
      c,
      "abandoned",
      `${int(s.abandoned.entries)} entries (${percent(s.abandonedShare.entries)}) · ` +
        `${int(s.abandoned.tokens.total)} tokens (${percent(s.abandonedShare.tokens)}) · ${cost(s.abandoned)}` +
        (branchCount === undefined ? "" : ` in ${branchCount} branch${branchCount === 1 ? "" : "es"}`) +
        c.dim(" — what rewinds cost"),
    ),
  ];
  if (s.time.undatedEntries > 0)
    lines.push(line(c, "note", c.yellow(`${int(s.time.undatedEntries)} entries have no readable time`)));
  return lines;
}

/** What the totals leave out (usage unknown is not zero), as note lines. */
function unknownNoteLines(c: Colors, t: UsageTally): string[] {
  return unknownNotes(t).map((note) => line(c, "note", c.yellow(note)));
}

const BRANCHES_SHOWN = 10;

/** One session: the totals, its abandoned branches, its models and tools. */
export function sessionLines(c: Colors, s: SessionStats, width: number): string[] {
  const lines = summaryLines(c, s, { branchCount: s.abandonedBranches.length });
  if (s.abandonedBranches.length > 0) {
    lines.push(c.bold("abandoned branches"));
    lines.push(...table(branchRows(s.abandonedBranches.slice(0, BRANCHES_SHOWN)), width));
    if (s.abandonedBranches.length > BRANCHES_SHOWN)
      lines.push(c.dim(`  … ${s.abandonedBranches.length - BRANCHES_SHOWN} more (--json lists them all)`));
  }
  return [...lines, ...modelAndToolLines(c, s, width)];
}

function branchRows(branches: readonly AbandonedBranch[]): string[][] {
  return [
    ["FIRST", "FROM", "ENTRIES", "TOKENS", "COST", "STARTS WITH"],
    ...branches.map((b) => [
      b.firstId,
      b.forkedFrom ?? "(root)",
      int(b.tally.entries),
      int(b.tally.tokens.total),
      cost(b.tally),
      `${b.tag} ${b.text}`,
    ]),
  ];
}

export function modelAndToolLines(c: Colors, s: StatsSummary, width: number): string[] {
  const lines: string[] = [];
  if (s.models.length > 0) {
    lines.push(c.bold("models"));
    const rows = s.models.map((m) => [m.model, int(m.assistantMessages), int(m.tokens.total), cost(m)]);
    lines.push(...table([["MODEL", "REPLIES", "TOKENS", "COST"], ...rows], width));
  }
  if (s.tools.length > 0) {
    lines.push(c.bold("tools"));
    const rows = s.tools.map((t) => [t.name, int(t.calls), int(t.results), int(t.errors)]);
    lines.push(...table([["TOOL", "CALLS", "RESULTS", "ERRORS"], ...rows], width));
  }
  return lines;
}

/** Many sessions: the totals, the grouped rows, then models and tools. */
export function rootLines(c: Colors, s: RootStats, width: number): string[] {
  const lines = [...summaryLines(c, s, { sessions: s.sessions }), c.bold(`by ${s.by}`)];
  const head = s.by === "session" ? ["SESSION", "LAST"] : [s.by.toUpperCase(), "SESSIONS"];
  const shortIds = shortestPrefixes(s.groups.map((g) => g.key));
  const rows = s.groups.map((g) => [
    ...(s.by === "session" ? [shortIds.get(g.key) ?? g.key, localTime(g.last)] : [g.key, int(g.sessions)]),
    ...tallyCells(g.total),
    percent(g.total.tokens.total > 0 ? g.abandoned.tokens.total / g.total.tokens.total : null),
    ...(s.by === "session" ? [groupName(g)] : []),
  ]);
  const columns = [...head, "ENTRIES", "TOKENS", "COST", "ACTIVE", "TOOLS", "ERRORS", "ABANDONED"];
  lines.push(...table([s.by === "session" ? [...columns, "NAME"] : columns, ...rows], width));
  return [...lines, ...modelAndToolLines(c, s, width)];
}

/** Each id cut to the shortest prefix (8 characters at least) that no other id of the list shares. */
function shortestPrefixes(ids: readonly string[]): Map<string, string> {
  const sorted = [...new Set(ids)].sort();
  const common = (a: string, b: string | undefined) => {
    let n = 0;
    while (b !== undefined && n < a.length && a[n] === b[n]) n++;
    return n;
  };
  return new Map(
    sorted.map((id, i) => {
      const shared = Math.max(common(id, sorted[i - 1]), common(id, sorted[i + 1]));
      return [id, id.slice(0, Math.max(8, shared + 1))];
    }),
  );
}

function tallyCells(t: Tally): string[] {
  return [
    int(t.entries),
    int(t.tokens.total),
    cost(t),
    duration(t.activeMs),
    int(t.toolCalls),
    int(t.toolErrors),
  ];
}

function groupName(g: StatsGroup): string {
  return g.name ?? "";
}

/** A cell that reads as a number (counts, dollars, percentages, durations): right-aligned. */
const NUMERIC = /^(?:[-–$\d.,%]+|\d+[hms](?: \d+[ms])?)$/;

/**
 * Rows under a header row, columns padded to their widest cell; a column whose every cell is a
 * number is right-aligned. The last column, when it is text, is cut to what is left of the width.
 */
function table(cellTexts: readonly string[][], width: number): string[] {
  // Cells hold session text (names, models, tools, messages): shown, not obeyed, and measured so.
  const rows = cellTexts.map((row) => row.map(terminalSafe));
  const [header, ...body] = rows;
  if (!header) return [];
  const widths = header.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)));
  const numeric = header.map((_, i) => body.length > 0 && body.every((row) => NUMERIC.test(row[i] ?? "")));
  const last = header.length - 1;
  return rows.map((row) => {
    const cells = row.map((cell, i) => {
      if (numeric[i]) return cell.padStart(widths[i] ?? 0);
      return i === last ? cell : cell.padEnd(widths[i] ?? 0);
    });
    const head = `  ${cells.slice(0, last).join("  ")}  `;
    const end = numeric[last]
      ? (cells[last] ?? "")
      : oneLine(cells[last] ?? "", Math.max(10, width - head.length));
    return `${head}${end}`.trimEnd();
  });
}
