import type { SessionEntry } from "../../core/entry.js";

/**
 * Path runs: the column `entries.run_start` that lets a branch read walk a path a run at a time
 * instead of an entry at a time (issue 14).
 *
 * A run is a stretch of a session's storage order (seq r, r + 1, …, s) in which each entry's
 * parent is the entry stored just before it; `run_start` of every entry in it is r. So the path
 * from entry s up to entry r is exactly the rows with seq r … s, read with one range scan of the
 * primary key, and the walk goes on from the parent of entry r. An agent appends under its leaf,
 * so a conversation is one run until it branches; a path crosses one run per branch point.
 *
 * The invariant (rows r … s of the session chain child to parent) cannot be broken later: entries
 * are never updated or deleted one by one. A NULL `run_start` (a row some other writer stored)
 * reads as a run of that row alone: slower, never wrong.
 */

/**
 * Each new entry's run start, seq `storedCount + 1` onward, as far as the batch alone tells: an
 * entry whose parent is the entry before it in the batch continues that entry's run. Entries in
 * the batch's first run get `storedCount + 1`; the insert statement moves them into the stored
 * last entry's run when that entry is the first one's parent (it alone can see it).
 */
export function runStarts(entries: readonly SessionEntry[], storedCount: number): number[] {
  const starts: number[] = [];
  for (let i = 0; i < entries.length; i++) {
    const previous = i > 0 ? entries[i - 1] : undefined;
    const continues = previous !== undefined && entries[i]?.parentId === previous.id;
    starts.push(continues ? (starts[i - 1] as number) : storedCount + i + 1);
  }
  return starts;
}
