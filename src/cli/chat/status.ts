import pc from "picocolors";
import type { SessionEntry } from "../../core/entry.js";
import { addUsage, emptyUsageTally, type UsageTally, usageOf } from "../../format/stats-usage.js";

/** Usage totals of assistant messages (as stored in them), one message at a time. */
export function tallyOf(messages: Iterable<unknown>): UsageTally {
  const tally = emptyUsageTally();
  for (const message of messages) addUsage(tally, usageOf(message));
  return tally;
}

/** Every assistant message of the session, all branches: what the session has cost so far. */
export function assistantMessages(entries: readonly SessionEntry[]): unknown[] {
  return entries.flatMap((e) => (e.type === "message" && e.message.role === "assistant" ? [e.message] : []));
}

/**
 * The line after each reply: tokens in and out of this turn and of the whole session, the cost when
 * the provider priced it (our providers report no price: it says so rather than show $0), and how
 * full the context is when the model's window is known.
 */
export function statusLine(
  turn: UsageTally,
  session: UsageTally,
  context?: { tokens: number; window: number },
): string {
  const parts = [`turn ${tokens(turn)}${cost(turn)}`, `session ${tokens(session)}${cost(session)}`];
  if (context) {
    const percent = Math.round((100 * context.tokens) / context.window);
    parts.push(`context ${number(context.tokens)}/${number(context.window)} (${percent}%)`);
  }
  return pc.dim(`[${parts.join(" · ")}]`);
}

function tokens(tally: UsageTally): string {
  const t = tally.tokens;
  const unknown = tally.usageUnknown > 0 ? ` (+${tally.usageUnknown} unreported)` : "";
  return `↑${number(t.input + t.cacheRead + t.cacheWrite)} ↓${number(t.output)}${unknown}`;
}

function cost(tally: UsageTally): string {
  if (tally.cost.total > 0) return ` $${tally.cost.total.toFixed(4)}`;
  return tally.tokens.total > 0 ? " cost n/a" : "";
}

function number(n: number): string {
  return n.toLocaleString("en-US");
}
