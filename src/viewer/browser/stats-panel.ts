/**
 * The stats panel: what the open session used and cost (`sessiontree stats`), from an answer the
 * data computed where the entries are (the local viewer's `/api/stats`, the service's
 * `/v1/sessions/{id}/stats`, the export's own tree). Tokens by kind and cost on the whole tree, on
 * the leaf's path and on abandoned branches, per model, time spent, tool calls by tool, and the
 * branches rewinds left behind. What is unknown (imports without usage) is said, never a zero.
 */
import type { AbandonedBranch, Tally } from "../../format/stats.js";
import type { SessionStatsAnswer } from "../session-insights.js";
import { clear, el } from "./dom.js";
import {
  costOf,
  duration,
  int,
  percent,
  plural,
  tokenCount,
  unknownNotes,
  usageLine,
} from "./insight-format.js";
import { jumpLink } from "./text-view.js";

/** Abandoned branches listed before "N more". */
const BRANCHES_SHOWN = 20;

export function renderStats(box: HTMLElement, s: SessionStatsAnswer, onJump: (id: string) => void): void {
  clear(box);
  const facts = el("dl", "facts");
  const fact = (name: string, text: string) => {
    facts.appendChild(el("dt", null, name));
    facts.appendChild(el("dd", null, text)).id = `stats-${name.replace(/\W+/g, "-")}`;
  };
  fact(
    "entries",
    `${int(s.entries)} (${int(s.leafPath.entries)} on the leaf's path, ${int(s.abandoned.entries)} abandoned)`,
  );
  fact("usage", usageLine(s.total));
  fact("time", timeText(s));
  fact("abandoned share", `${percent(s.abandonedShare.entries)} of entries · ${tokenShare(s)}`);
  box.appendChild(facts);
  for (const note of unknownNotes(s.total)) box.appendChild(el("div", "warning stats-unknown", note));
  if (s.imported)
    box.appendChild(el("div", "muted", "Imported: zero usage there is the importer's, counted as unknown."));
  box.appendChild(usageTable(s));
  if (s.models.length > 0) {
    box.appendChild(el("h4", null, "Per model"));
    const rows = s.models.map((m) => [
      m.model,
      int(m.assistantMessages),
      tokenCount(m, m.tokens.total),
      costOf(m, m.cost.total),
    ]);
    box.appendChild(table("stats-models", ["model", "replies", "tokens", "cost"], rows));
  }
  if (s.tools.length > 0) {
    box.appendChild(el("h4", null, "Tool calls"));
    const rows = s.tools.map((t) => [t.name, int(t.calls), int(t.results), int(t.errors)]);
    box.appendChild(table("stats-tools", ["tool", "calls", "results", "errors"], rows));
  }
  if (s.abandonedBranches.length > 0) box.appendChild(branchList(s.abandonedBranches, onJump));
}

function timeText(s: SessionStatsAnswer): string {
  const { wallMs, activeMs, idleGapMs, undatedEntries } = s.time;
  const idle = `gaps over ${duration(idleGapMs)} left out`;
  const undated = undatedEntries > 0 ? ` · ${plural(undatedEntries, "entry", "entries")} undated` : "";
  return `${duration(wallMs)} wall · ${duration(activeMs)} active (${idle})${undated}`;
}

function tokenShare(s: SessionStatsAnswer): string {
  const known = s.total.assistantMessages - s.total.usageUnknown;
  return known === 0 ? "tokens unknown" : `${percent(s.abandonedShare.tokens)} of known tokens`;
}

/** Tokens by kind and cost, for the whole tree, the leaf's path and the abandoned branches. */
function usageTable(s: SessionStatsAnswer): HTMLTableElement {
  const columns: Array<[string, Tally]> = [
    ["all", s.total],
    ["leaf's path", s.leafPath],
    ["abandoned", s.abandoned],
  ];
  const row = (name: string, cell: (t: Tally) => string) => [name, ...columns.map(([, t]) => cell(t))];
  const rows = [
    row("assistant messages", (t) => int(t.assistantMessages)),
    row("input", (t) => tokenCount(t, t.tokens.input)),
    row("output", (t) => tokenCount(t, t.tokens.output)),
    row("cache read", (t) => tokenCount(t, t.tokens.cacheRead)),
    row("cache write", (t) => tokenCount(t, t.tokens.cacheWrite)),
    row("tokens", (t) => tokenCount(t, t.tokens.total)),
    row("cost", (t) => costOf(t, t.cost.total)),
    row("tool calls", (t) => int(t.toolCalls)),
    row("tool errors", (t) => int(t.toolErrors)),
    row("active time", (t) => duration(t.activeMs)),
  ];
  return table("stats-usage", ["", ...columns.map(([name]) => name)], rows);
}

/** A table whose cells say what they are (`data-row`, `data-col`): the first cell names the row. */
function table(id: string, head: string[], rows: string[][]): HTMLTableElement {
  const t = el("table", "insight-table");
  t.id = id;
  const tr = el("tr");
  for (const name of head) tr.appendChild(el("th", null, name));
  t.appendChild(tr);
  for (const cells of rows) {
    const line = el("tr");
    cells.forEach((text, i) => {
      const td = el("td", i === 0 ? "row-name" : null, text);
      td.dataset.row = cells[0];
      td.dataset.col = head[i] || "name";
      line.appendChild(td);
    });
    t.appendChild(line);
  }
  return t;
}

/** What each rewind left behind: its first entry (click to go there), entries, usage. */
function branchList(branches: AbandonedBranch[], onJump: (id: string) => void): HTMLElement {
  const box = el("div");
  box.id = "stats-branches";
  box.appendChild(el("h4", null, `Abandoned branches (${branches.length})`));
  for (const b of branches.slice(0, BRANCHES_SHOWN)) {
    const line = el("div", "insight-line");
    line.appendChild(jumpLink(b.firstId, onJump));
    line.appendChild(el("span", null, ` ${b.tag} ${b.text}`));
    line.appendChild(
      el("div", "muted", `${plural(b.tally.entries, "entry", "entries")} · ${usageLine(b.tally)}`),
    );
    box.appendChild(line);
  }
  if (branches.length > BRANCHES_SHOWN)
    box.appendChild(el("div", "muted", `and ${branches.length - BRANCHES_SHOWN} more`));
  return box;
}
