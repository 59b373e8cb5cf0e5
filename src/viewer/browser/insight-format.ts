/**
 * How the stats and diff panels write usage that says what it does not know (the number words are
 * the format layer's, shared with the CLI): a tally none of whose messages has usable usage reads
 * "unknown", never zero.
 */
import type { UsageTally } from "../../format/stats.js";
import { dollars, int } from "../../format/stats-words.js";

export { dollars, duration, int, percent, unknownNotes } from "../../format/stats-words.js";

export function plural(n: number, one: string, many: string): string {
  return `${int(n)} ${n === 1 ? one : many}`;
}

/** Assistant messages whose token counts are known. */
function knownUsage(t: UsageTally): number {
  return t.assistantMessages - t.usageUnknown;
}

/** Assistant messages whose cost is known. */
function knownCost(t: UsageTally): number {
  return t.assistantMessages - t.usageUnknown - t.costUnknown;
}

/**
 * A token count of the tally: "–" without assistant messages, "unknown" when none said, marked
 * "+?" when some did not (the count is of those that did).
 */
export function tokenCount(t: UsageTally, n: number): string {
  if (t.assistantMessages === 0) return "–";
  const known = knownUsage(t);
  if (known === 0) return "unknown";
  return known < t.assistantMessages ? `${int(n)} +?` : int(n);
}

/** A cost of the tally, marked "+?" when some of its messages' cost is unknown. */
export function costOf(t: UsageTally, n: number): string {
  if (t.assistantMessages === 0) return "–";
  const known = knownCost(t);
  if (known === 0) return "unknown";
  return known < t.assistantMessages ? `${dollars(n)} +?` : dollars(n);
}

/** "1,303 tokens · $1.75", with what is unknown said as such. */
export function usageLine(t: UsageTally): string {
  if (t.assistantMessages === 0) return "no assistant messages";
  if (knownUsage(t) === 0) return "usage unknown";
  const cost = knownCost(t) === 0 ? "cost unknown" : costOf(t, t.cost.total);
  return `${tokenCount(t, t.tokens.total)} tokens · ${cost}`;
}

/** A path under the session's directory, relative to it; others as written. */
export function relativeTo(cwd: string, path: string): string {
  return cwd !== "" && path.startsWith(`${cwd}/`) ? path.slice(cwd.length + 1) : path;
}
