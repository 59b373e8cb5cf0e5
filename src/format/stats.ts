/**
 * `stats`: what sessions used and cost, from the usage pi stores on assistant messages. Per
 * session (on the leaf's path, on each abandoned branch, per model, per tool, time spent) and over
 * many sessions grouped by session, day, model or directory. Pure: the caller reads the files.
 *
 * How things are counted:
 * - tokens and cost are sums of each assistant message's `usage`; a message without usable usage
 *   (imports without token counts) is counted as "usage unknown", never as zero (stats-usage.ts);
 * - active time is the time between consecutive entries (every branch, in time order) leaving out
 *   gaps longer than the idle gap (10 minutes by default); wall time is first to last entry;
 * - an abandoned branch is a subtree that hangs off the leaf's path (what a rewind left behind);
 * - `since` keeps the entries at or after that time; the tree (which branch is the path) is the
 *   whole session's.
 */
import type { SessionTree } from "../core/tree.js";
import { describeEntry } from "./describe.js";
import {
  DEFAULT_IDLE_GAP_MS,
  type EntryFact,
  type FactOptions,
  factsSince,
  sessionFacts,
} from "./stats-facts.js";
import { addFact, emptyTally, type StatsSummary, SummaryBuilder, type Tally } from "./stats-summary.js";
import { roundCost } from "./stats-usage.js";

export { DEFAULT_IDLE_GAP_MS } from "./stats-facts.js";
export type { ModelRow, StatsSummary, Tally, TimeSpent, ToolRow } from "./stats-summary.js";
export type { CostTotals, TokenCounts, UsageTally } from "./stats-usage.js";
export { isImported } from "./stats-usage.js";

export interface StatsOptions extends FactOptions {
  /** Only entries at or after this time (ms since the epoch) count. */
  since?: number;
}

/** A subtree off the leaf's path: what one rewind left behind. */
export interface AbandonedBranch {
  /** Its first entry, and the entry on the path it hangs from (null: a root of its own). */
  firstId: string;
  forkedFrom: string | null;
  /** How its first entry reads (describeEntry), to recognise it. */
  tag: string;
  text: string;
  /** Its last entry's time (ISO), null when none is readable. */
  last: string | null;
  tally: Tally;
}

export interface SessionStats extends StatsSummary {
  /** Most tokens first, then most entries. */
  abandonedBranches: AbandonedBranch[];
}

/** The stats of one session. */
export function sessionStats(tree: SessionTree, options: StatsOptions = {}): SessionStats {
  const idleGapMs = options.idleGapMs ?? DEFAULT_IDLE_GAP_MS;
  const facts = factsSince(sessionFacts(tree, options), options.since);
  const summary = new SummaryBuilder(idleGapMs);
  summary.addSession(facts);
  return { ...summary.build(), abandonedBranches: abandonedBranches(tree, facts) };
}

function abandonedBranches(tree: SessionTree, facts: readonly EntryFact[]): AbandonedBranch[] {
  const byFirst = new Map<string, AbandonedBranch & { lastMs: number }>();
  for (const fact of facts) {
    if (fact.branch === null) continue;
    let branch = byFirst.get(fact.branch);
    if (!branch) {
      const first = tree.getEntry(fact.branch);
      const { tag, text } = first ? describeEntry(first) : { tag: "?", text: "" };
      branch = {
        firstId: fact.branch,
        forkedFrom: first?.parentId ?? null,
        tag,
        text,
        last: null,
        lastMs: Number.NEGATIVE_INFINITY,
        tally: emptyTally(),
      };
      byFirst.set(fact.branch, branch);
    }
    addFact(branch.tally, fact);
    if (fact.time > branch.lastMs) branch.lastMs = fact.time;
  }
  return [...byFirst.values()]
    .map(({ lastMs, ...branch }) => ({
      ...branch,
      last: Number.isFinite(lastMs) ? new Date(lastMs).toISOString() : null,
      tally: roundCost(branch.tally),
    }))
    .sort((a, b) => b.tally.tokens.total - a.tally.tokens.total || b.tally.entries - a.tally.entries);
}

export {
  type RootStats,
  RootStatsBuilder,
  type RootStatsOptions,
  type SessionInput,
  STATS_GROUPINGS,
  type StatsGroup,
  type StatsGrouping,
} from "./stats-root.js";
