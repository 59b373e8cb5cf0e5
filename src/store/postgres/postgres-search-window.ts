/**
 * Newest-first search in growing windows of `doc` (write order). Ranking the newest `window`
 * matches by one statement over the whole table let the planner pick between two plans that each
 * fail at a million entries: the GIN bitmap over every match (a phrase of common words: 368k
 * candidates rechecked, seconds) or walking `search_entries_doc` backwards (a rare phrase the
 * statistics overestimate: 780k rows read, seconds). Here each step looks only at docs above a
 * bound: first the newest `firstSpan` rows, then more by the density of matches seen (`nextSpan`),
 * at last the whole table. A common word fills the window in the first step (walking back a few
 * thousand rows, or the GIN bitmap ANDed with the doc range: heap pages of the range only); a rare
 * one goes on to one GIN lookup of the whole table. A step that found `window` matches is the
 * unwindowed answer (every match above its bound is newer than every match below), and the last
 * step has no bound: answers are the same as one statement's.
 */

import type { PgClient } from "./connection.js";

/** How the windows grow. */
export interface WindowSteps {
  /** Rows (docs) of the first window. */
  firstSpan: number;
  /** Least and most growth of a window over the one before. */
  minGrowth: number;
  maxGrowth: number;
  /** Told of each step: the lowest doc excluded (null: the whole table) and the matches found. */
  onStep?: (floor: string | null, found: number) => void;
}

export const WINDOW_STEPS: Readonly<WindowSteps> = Object.freeze({
  firstSpan: 16_384,
  minGrowth: 1.5,
  maxGrowth: 8,
});

/**
 * The next window's span: enough rows for the window at the density of matches seen so far, with a
 * quarter to spare (a bitmap step reads every match of its span, so overshooting costs), between
 * `minGrowth` and `maxGrowth` times the last span; the whole table (`total` rows or more) at once
 * when even that is too few at this density (a rare term: one GIN lookup, not several).
 */
export function nextSpan(
  steps: Readonly<WindowSteps>,
  span: number,
  found: number,
  window: number,
  total: number,
): number {
  const wanted = found > 0 ? (span * 1.25 * window) / found : Number.POSITIVE_INFINITY;
  if (wanted >= total) return total;
  const { minGrowth, maxGrowth } = steps;
  return Math.ceil(Math.min(span * maxGrowth, Math.max(span * minGrowth, wanted)));
}

/**
 * After the first step, each reads by bitmap only: the planner may not walk `doc` backwards (the
 * step before found few matches, so the walk would pass many rows per match) nor scan the table.
 * The first step may walk: a word in most entries fills the window in a few thousand rows, and the
 * walk stops at the window's bound anyway.
 */
const BITMAP_ONLY =
  "SELECT set_config('enable_indexscan', 'off', true), set_config('enable_seqscan', 'off', true)";
const RESET = "SELECT set_config('enable_indexscan', 'on', true), set_config('enable_seqscan', 'on', true)";

/** The newest doc: the top of the first window (null when nothing is indexed). */
const NEWEST_DOC = "SELECT max(doc)::text AS newest FROM search_entries";

/** A step's rows carry `found`, how many matches its window held (at most the window). */
export interface WindowRow {
  found: string;
}

/**
 * Runs `sql` (parameters `params`, then the lowest doc excluded as the last one, null for none)
 * over growing windows until one holds `window` matches or the whole table was read.
 */
export async function searchWindows<Row extends WindowRow>(
  c: PgClient,
  sql: string,
  params: readonly unknown[],
  window: number,
  steps: Readonly<WindowSteps> = WINDOW_STEPS,
): Promise<Row[]> {
  const newest = (await c.query(NEWEST_DOC)).rows[0]?.newest as string | null | undefined;
  if (newest === null || newest === undefined) return [];
  const top = BigInt(newest);
  let bitmapOnly = false;
  for (let span = steps.firstSpan; ; ) {
    const floor = top - BigInt(span);
    const whole = floor <= 0n;
    const rows = (await c.query(sql, [...params, whole ? null : floor.toString()])).rows as unknown as Row[];
    const found = Number(rows[0]?.found ?? 0);
    steps.onStep?.(whole ? null : floor.toString(), found);
    if (whole || found >= window) {
      // The rest of the transaction (branch walks) reads by index again.
      if (bitmapOnly) await c.query(RESET);
      return rows;
    }
    if (!bitmapOnly) await c.query(BITMAP_ONLY);
    bitmapOnly = true;
    span = nextSpan(steps, span, found, window, Number(top));
  }
}
