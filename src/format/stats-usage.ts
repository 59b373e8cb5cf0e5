/**
 * The usage pi stores on an assistant message (`usage: { input, output, cacheRead, cacheWrite,
 * totalTokens, cost: { input, output, cacheRead, cacheWrite, total } }`) read as numbers, and the
 * running totals `stats` and `diff` add them into. Pure: no I/O.
 *
 * Nothing is invented: a message without usable usage is counted as "usage unknown", one with
 * tokens but no cost as "cost unknown", and neither adds a zero to the totals.
 */
import type { SessionHeader } from "../core/entry.js";

export interface TokenCounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** input + output + cacheRead + cacheWrite (pi's `totalTokens`; older files lack the field). */
  total: number;
}

/** Cost in the currency pi's model table prices in (US dollars). */
export interface CostTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

/** What one assistant message is known to have used. */
export interface MessageUsage {
  tokens: TokenCounts;
  /** null: the message does not say what it cost (imports, older writers). */
  cost: CostTotals | null;
}

/** Totals over a set of assistant messages, with how many said nothing usable. */
export interface UsageTally {
  assistantMessages: number;
  /** Assistant messages whose usage is missing or unreadable: not counted in `tokens` or `cost`. */
  usageUnknown: number;
  /** Assistant messages with token counts but no cost: counted in `tokens`, not in `cost`. */
  costUnknown: number;
  tokens: TokenCounts;
  cost: CostTotals;
}

type Record_ = Record<string, unknown>;

function isRecord(value: unknown): value is Record_ {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A count or a price as a number to add up, or undefined (unknown). Above 2^53 no count is real
 * and sums could overflow to Infinity (which JSON writes as null): such a value is unknown too.
 */
function count(value: unknown): number | undefined {
  return typeof value === "number" && value >= 0 && value <= Number.MAX_SAFE_INTEGER ? value : undefined;
}

/**
 * The usage of an assistant message, or null when it is unknown: no `usage` object, or none of
 * its four token counts is a number. In an imported session (`imported`), all-zero counts and a
 * zero cost are the importers' placeholders (Codex replies without a token count; Claude Code
 * records no price), so they are unknown too, not zero.
 */
export function usageOf(message: unknown, imported = false): MessageUsage | null {
  const usage = isRecord(message) ? message.usage : undefined;
  if (!isRecord(usage)) return null;
  const input = count(usage.input);
  const output = count(usage.output);
  const cacheRead = count(usage.cacheRead);
  const cacheWrite = count(usage.cacheWrite);
  if (input === undefined && output === undefined && cacheRead === undefined && cacheWrite === undefined)
    return null;
  const tokens = {
    input: input ?? 0,
    output: output ?? 0,
    cacheRead: cacheRead ?? 0,
    cacheWrite: cacheWrite ?? 0,
    total: (input ?? 0) + (output ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0),
  };
  if (imported && tokens.total === 0) return null;
  return { tokens, cost: costOf(usage.cost, imported) };
}

function costOf(value: unknown, imported: boolean): CostTotals | null {
  if (!isRecord(value)) return null;
  const total = count(value.total);
  if (total === undefined || (imported && total === 0)) return null;
  const part = (field: string) => count(value[field]) ?? 0;
  return {
    input: part("input"),
    output: part("output"),
    cacheRead: part("cacheRead"),
    cacheWrite: part("cacheWrite"),
    total,
  };
}

/** Whether a session header says the session was imported (Claude Code, Codex: `importedFrom`). */
export function isImported(header: SessionHeader): boolean {
  return header.importedFrom !== undefined && header.importedFrom !== null;
}

export function emptyTokens(): TokenCounts {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
}

function emptyCost(): CostTotals {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
}

export function emptyUsageTally(): UsageTally {
  return { assistantMessages: 0, usageUnknown: 0, costUnknown: 0, tokens: emptyTokens(), cost: emptyCost() };
}

/** Adds one assistant message's usage (null: unknown) to a tally. */
export function addUsage(tally: UsageTally, usage: MessageUsage | null): void {
  tally.assistantMessages++;
  if (usage === null) {
    tally.usageUnknown++;
    return;
  }
  addParts(tally.tokens, usage.tokens);
  if (usage.cost === null) tally.costUnknown++;
  else addParts(tally.cost, usage.cost);
}

/** Adds one tally into another. */
export function addUsageTally(into: UsageTally, from: UsageTally): void {
  into.assistantMessages += from.assistantMessages;
  into.usageUnknown += from.usageUnknown;
  into.costUnknown += from.costUnknown;
  addParts(into.tokens, from.tokens);
  addParts(into.cost, from.cost);
}

function addParts<T extends TokenCounts | CostTotals>(into: T, from: T): void {
  into.input += from.input;
  into.output += from.output;
  into.cacheRead += from.cacheRead;
  into.cacheWrite += from.cacheWrite;
  into.total += from.total;
}

/**
 * A copy of a tally with its cost rounded to a billionth of a dollar: sums of float prices carry
 * noise in the last digits (0.0031469999999999844) that says nothing. For totals shown.
 */
export function roundCost<T extends UsageTally>(tally: T): T {
  const round = (n: number) => Math.round(n * 1e9) / 1e9;
  const { input, output, cacheRead, cacheWrite, total } = tally.cost;
  return {
    ...tally,
    tokens: { ...tally.tokens },
    cost: {
      input: round(input),
      output: round(output),
      cacheRead: round(cacheRead),
      cacheWrite: round(cacheWrite),
      total: round(total),
    },
  };
}
