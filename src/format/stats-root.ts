/**
 * Stats over many sessions (`stats` without a session): one summary, and rows grouped by session,
 * day, model or directory. Sessions are folded in one at a time, so memory holds the rows, not
 * the entries of every session.
 */
import type { SessionTree } from "../core/tree.js";
import { DEFAULT_IDLE_GAP_MS, type EntryFact, factsSince, sessionFacts } from "./stats-facts.js";
import { addFact, emptyTally, type StatsSummary, SummaryBuilder, type Tally } from "./stats-summary.js";
import { roundCost } from "./stats-usage.js";

/** How rows of stats over many sessions are grouped. */
export type StatsGrouping = "session" | "day" | "model" | "cwd";
export const STATS_GROUPINGS: readonly StatsGrouping[] = ["session", "day", "model", "cwd"];

/** One session handed to `RootStatsBuilder`. */
export interface SessionInput {
  tree: SessionTree;
  sessionId: string;
  path: string;
  cwd: string;
  name: string | null;
  /** Its header says it was imported (`importedFrom`). */
  imported: boolean;
}

export interface RootStatsOptions {
  by: StatsGrouping;
  /** Only entries at or after this time (ms since the epoch) count. */
  since?: number;
  idleGapMs?: number;
  /** The day an entry counts on, for `by: "day"` (default: its UTC date, YYYY-MM-DD). */
  dayOf?: (ms: number) => string;
}

export interface StatsGroup {
  /** The session id, day, "provider/model" or directory. */
  key: string;
  /** Sessions with entries in the group. */
  sessions: number;
  total: Tally;
  /** The part of `total` off the leaf's path. */
  abandoned: Tally;
  /** First and last entry time in the group (ISO), null when none is readable. */
  first: string | null;
  last: string | null;
  /** By session: its file and name. */
  path?: string;
  name?: string | null;
}

export interface RootStats extends StatsSummary {
  /** Sessions with at least one entry counted. */
  sessions: number;
  by: StatsGrouping;
  since: string | null;
  groups: StatsGroup[];
}

/** Entries whose timestamp cannot be read land in this day. */
const UNDATED = "(undated)";

interface OpenGroup {
  group: StatsGroup;
  firstMs: number;
  lastMs: number;
  /** The number of the last session counted in `sessions`. */
  lastSession: number;
}

function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export class RootStatsBuilder {
  private readonly summary: SummaryBuilder;
  private readonly groups = new Map<string, OpenGroup>();
  private sessions = 0;

  constructor(private readonly options: RootStatsOptions) {
    this.summary = new SummaryBuilder(options.idleGapMs ?? DEFAULT_IDLE_GAP_MS);
  }

  /** Folds one session in; false when none of its entries counts (all before `since`, or none). */
  add(session: SessionInput): boolean {
    const all = sessionFacts(session.tree, { imported: session.imported, idleGapMs: this.options.idleGapMs });
    const facts = factsSince(all, this.options.since);
    if (facts.length === 0) return false;
    this.sessions++;
    this.summary.addSession(facts);
    for (const fact of facts) {
      const key = this.keyOf(session, fact);
      if (key !== null) this.count(this.groupFor(key, session), fact);
    }
    return true;
  }

  /** The group an entry counts in; null when it has none (a user message has no model). */
  private keyOf(session: SessionInput, fact: EntryFact): string | null {
    switch (this.options.by) {
      case "session":
        return session.path;
      case "day":
        return Number.isNaN(fact.time) ? UNDATED : (this.options.dayOf ?? utcDay)(fact.time);
      case "model":
        return fact.model;
      case "cwd":
        return session.cwd;
    }
  }

  private groupFor(key: string, session: SessionInput): OpenGroup {
    let open = this.groups.get(key);
    if (!open) {
      const group: StatsGroup = {
        key: this.options.by === "session" ? session.sessionId : key,
        sessions: 0,
        total: emptyTally(),
        abandoned: emptyTally(),
        first: null,
        last: null,
      };
      if (this.options.by === "session") Object.assign(group, { path: session.path, name: session.name });
      open = { group, firstMs: Number.POSITIVE_INFINITY, lastMs: Number.NEGATIVE_INFINITY, lastSession: 0 };
      this.groups.set(key, open);
    }
    if (open.lastSession !== this.sessions) {
      open.lastSession = this.sessions;
      open.group.sessions++;
    }
    return open;
  }

  private count(open: OpenGroup, fact: EntryFact): void {
    addFact(open.group.total, fact);
    if (!fact.onPath) addFact(open.group.abandoned, fact);
    if (Number.isNaN(fact.time)) return;
    open.firstMs = Math.min(open.firstMs, fact.time);
    open.lastMs = Math.max(open.lastMs, fact.time);
  }

  build(): RootStats {
    const groups = [...this.groups.values()].map(({ group, firstMs, lastMs }) => ({
      ...group,
      total: roundCost(group.total),
      abandoned: roundCost(group.abandoned),
      first: Number.isFinite(firstMs) ? new Date(firstMs).toISOString() : null,
      last: Number.isFinite(lastMs) ? new Date(lastMs).toISOString() : null,
    }));
    return {
      sessions: this.sessions,
      by: this.options.by,
      since: this.options.since === undefined ? null : new Date(this.options.since).toISOString(),
      ...this.summary.build(),
      groups: groups.sort(this.order()),
    };
  }

  /** Sessions latest first (as `ls`), days in calendar order, models and folders most tokens first. */
  private order(): (a: StatsGroup, b: StatsGroup) => number {
    switch (this.options.by) {
      case "session":
        return (a, b) => (b.last ?? "").localeCompare(a.last ?? "") || a.key.localeCompare(b.key);
      case "day":
        return (a, b) => a.key.localeCompare(b.key);
      default:
        return (a, b) => b.total.tokens.total - a.total.tokens.total || a.key.localeCompare(b.key);
    }
  }
}
