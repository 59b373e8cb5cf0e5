/**
 * Totals over entry facts (`stats-facts.ts`): the tally a row of `stats` shows, and the summary
 * of one session or many (time, usage on and off the leaf's path, models, tools).
 */
import type { EntryFact } from "./stats-facts.js";
import { addUsage, addUsageTally, emptyUsageTally, roundCost, type UsageTally } from "./stats-usage.js";

/** One row's totals: entries, usage, tool calls and errors, active time. */
export interface Tally extends UsageTally {
  entries: number;
  toolCalls: number;
  /** Tool results that are errors (`isError`). */
  toolErrors: number;
  activeMs: number;
}

export interface ToolRow {
  name: string;
  /** Calls in assistant messages. */
  calls: number;
  /** Results recorded (a call whose result was never written has none). */
  results: number;
  /** Results that are errors. */
  errors: number;
}

export interface ModelRow extends Tally {
  /** "provider/model". */
  model: string;
}

export interface TimeSpent {
  /** The first and last entry timestamps (ISO), null when no entry has a readable one. */
  first: string | null;
  last: string | null;
  /** last − first, summed over sessions. */
  wallMs: number;
  /** Time between entries, leaving out every gap longer than `idleGapMs`. */
  activeMs: number;
  idleGapMs: number;
  /** Entries whose timestamp could not be read: in no time total. */
  undatedEntries: number;
}

export interface StatsSummary {
  entries: number;
  time: TimeSpent;
  /** Every entry, every branch. */
  total: Tally;
  /** The entries on the leaf's path. */
  leafPath: Tally;
  /** The entries off it: branches left by rewinds. */
  abandoned: Tally;
  /** abandoned / total, for entries and for known tokens; null when there is nothing to divide. */
  abandonedShare: { entries: number | null; tokens: number | null };
  /** Most tokens first. */
  models: ModelRow[];
  /** Most calls first. */
  tools: ToolRow[];
}

export function emptyTally(): Tally {
  return { ...emptyUsageTally(), entries: 0, toolCalls: 0, toolErrors: 0, activeMs: 0 };
}

export function addFact(tally: Tally, fact: EntryFact): void {
  tally.entries++;
  tally.activeMs += fact.activeMs;
  tally.toolCalls += fact.toolCalls.length;
  if (fact.toolResult?.isError) tally.toolErrors++;
  if (fact.usage !== undefined) addUsage(tally, fact.usage);
}

export function addTally(into: Tally, from: Tally): void {
  addUsageTally(into, from);
  into.entries += from.entries;
  into.toolCalls += from.toolCalls;
  into.toolErrors += from.toolErrors;
  into.activeMs += from.activeMs;
}

/** Folds the facts of one or more sessions into a summary, one session at a time. */
export class SummaryBuilder {
  private readonly total = emptyTally();
  private readonly leafPath = emptyTally();
  private readonly abandoned = emptyTally();
  private readonly models = new Map<string, ModelRow>();
  private readonly tools = new Map<string, ToolRow>();
  private first = Number.POSITIVE_INFINITY;
  private last = Number.NEGATIVE_INFINITY;
  private wallMs = 0;
  private undated = 0;

  constructor(private readonly idleGapMs: number) {}

  /** The facts of one session (its wall time is its own first to last entry). */
  addSession(facts: readonly EntryFact[]): void {
    let first = Number.POSITIVE_INFINITY;
    let last = Number.NEGATIVE_INFINITY;
    for (const fact of facts) {
      this.add(fact);
      if (Number.isNaN(fact.time)) this.undated++;
      else {
        first = Math.min(first, fact.time);
        last = Math.max(last, fact.time);
      }
    }
    if (first > last) return;
    this.wallMs += last - first;
    this.first = Math.min(this.first, first);
    this.last = Math.max(this.last, last);
  }

  private add(fact: EntryFact): void {
    addFact(this.total, fact);
    addFact(fact.onPath ? this.leafPath : this.abandoned, fact);
    if (fact.model !== null) addFact(this.modelRow(fact.model), fact);
    for (const name of fact.toolCalls) this.toolRow(name).calls++;
    if (fact.toolResult) {
      const row = this.toolRow(fact.toolResult.name);
      row.results++;
      if (fact.toolResult.isError) row.errors++;
    }
  }

  private modelRow(model: string): ModelRow {
    const row = this.models.get(model);
    if (row) return row;
    const created: ModelRow = { model, ...emptyTally() };
    this.models.set(model, created);
    return created;
  }

  private toolRow(name: string): ToolRow {
    const row = this.tools.get(name);
    if (row) return row;
    const created: ToolRow = { name, calls: 0, results: 0, errors: 0 };
    this.tools.set(name, created);
    return created;
  }

  build(): StatsSummary {
    const dated = this.first <= this.last;
    return {
      entries: this.total.entries,
      time: {
        first: dated ? new Date(this.first).toISOString() : null,
        last: dated ? new Date(this.last).toISOString() : null,
        wallMs: this.wallMs,
        activeMs: this.total.activeMs,
        idleGapMs: this.idleGapMs,
        undatedEntries: this.undated,
      },
      total: roundCost(this.total),
      leafPath: roundCost(this.leafPath),
      abandoned: roundCost(this.abandoned),
      abandonedShare: {
        entries: ratio(this.abandoned.entries, this.total.entries),
        tokens: ratio(this.abandoned.tokens.total, this.total.tokens.total),
      },
      models: [...this.models.values()]
        .map(roundCost)
        .sort((a, b) => b.tokens.total - a.tokens.total || a.model.localeCompare(b.model)),
      tools: [...this.tools.values()].sort((a, b) => b.calls - a.calls || a.name.localeCompare(b.name)),
    };
  }
}

function ratio(part: number, whole: number): number | null {
  return whole > 0 ? part / whole : null;
}
