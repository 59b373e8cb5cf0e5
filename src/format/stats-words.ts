/**
 * How stats read for people, wherever they are shown (the CLI's `stats`, the viewer's panels):
 * counts, dollars, durations, shares, and what the totals do not know. Usage missing on assistant
 * messages (imports) is said, never counted as zero.
 */
import type { UsageTally } from "./stats.js";

export function int(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/** Dollars with cents; below a cent, enough digits not to read as zero. */
export function dollars(n: number): string {
  return n > 0 && n < 0.01 ? `$${n.toPrecision(2)}` : `$${n.toFixed(2)}`;
}

/** `1h 05m`, `3m 07s`, `12s`. */
export function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60];
  if (h > 0) return `${h}h ${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m ${String(s).padStart(2, "0")}s`;
  return `${s}s`;
}

/** A share as `42.9%`; "–" when there is nothing to share. */
export function percent(ratio: number | null): string {
  return ratio === null ? "–" : `${(ratio * 100).toFixed(1)}%`;
}

/**
 * What the totals leave out: "usage unknown for 3 of 10 assistant messages", "cost unknown for …"
 * (a message without usage has no cost either); empty when everything is known.
 */
export function unknownNotes(t: UsageTally): string[] {
  const notes: string[] = [];
  const of = `of ${int(t.assistantMessages)} assistant messages`;
  if (t.usageUnknown > 0) notes.push(`usage unknown for ${int(t.usageUnknown)} ${of}`);
  const costUnknown = t.usageUnknown + t.costUnknown;
  if (costUnknown > 0) notes.push(`cost unknown for ${int(costUnknown)} ${of}`);
  return notes;
}
