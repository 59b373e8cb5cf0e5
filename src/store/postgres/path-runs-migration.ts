import type { Migration } from "../migrations.js";

/**
 * The schema step that adds `entries.run_start` (see path-runs.ts) and fills it for the rows
 * stored before it: an entry continues the run of the entry stored just before it when that entry
 * is its parent; otherwise a run starts at it. Rows it misses (none, in one transaction) would
 * read as runs of one.
 */
export const PATH_RUNS_MIGRATION: Migration = {
  version: 4,
  name: "path runs",
  statements: [
    "ALTER TABLE entries ADD COLUMN run_start integer",
    `UPDATE entries AS e SET run_start = r.run_start
      FROM (
        SELECT session_pk, seq,
          max(CASE WHEN continues THEN NULL ELSE seq END)
            OVER (PARTITION BY session_pk ORDER BY seq ROWS UNBOUNDED PRECEDING) AS run_start
        FROM (
          SELECT session_pk, seq,
            coalesce(parent_id = lag(id) OVER w AND seq = lag(seq) OVER w + 1, false) AS continues
          FROM entries
          WINDOW w AS (PARTITION BY session_pk ORDER BY seq)
        ) AS steps
      ) AS r
      WHERE e.session_pk = r.session_pk AND e.seq = r.seq`,
  ],
};
