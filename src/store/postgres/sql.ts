/**
 * The runs of the path root → $2 in session $1 (as text), leaf first: (first, last) seq ranges.
 * A NULL run_start is a run of one. `branchSince` puts its stop condition at the `until` comment.
 */
const PATH_RUNS = `runs (first, last) AS (
      SELECT coalesce(run_start, seq), seq FROM entries WHERE entry_key = $1::text || '/' || $2::text
      UNION ALL
      SELECT coalesce(p.run_start, p.seq), p.seq
      FROM runs
      CROSS JOIN LATERAL (
        SELECT parent_id FROM entries WHERE session_pk = $1::bigint AND seq = runs.first LIMIT 1
      ) AS head
      CROSS JOIN LATERAL (
        SELECT run_start, seq FROM entries WHERE entry_key = $1::text || '/' || head.parent_id LIMIT 1
      ) AS p
      /* until */
    )`;

/**
 * Every statement the PostgreSQL store runs: fixed text, values only through $n parameters.
 * Columns of `updateSession` follow `mutableColumns` in sql/rows.ts.
 */
export const SQL = {
  findSession: "SELECT * FROM sessions WHERE owner = $1 AND id = $2",
  /** The same, locking the row until the transaction ends: writers to one session queue here. */
  lockSession: "SELECT * FROM sessions WHERE owner = $1 AND id = $2 FOR UPDATE",
  insertSession: `INSERT INTO sessions (owner, id, cwd, parent_session, created_at, header,
      revision, leaf_id, name, modified_at, deleted_at, entry_count, message_count, first_message, search_text)
    VALUES ($1, $2, $3, $4, $5, $6::json, $7, $8, $9, $10, $11, $12, $13, $14, $15)
    ON CONFLICT (owner, id) DO NOTHING
    RETURNING pk`,
  updateSession: `UPDATE sessions SET revision = $1, leaf_id = $2, name = $3, modified_at = $4, deleted_at = $5,
      entry_count = $6, message_count = $7, first_message = $8, search_text = $9
    WHERE pk = $10`,
  deleteSession: "DELETE FROM sessions WHERE pk = $1",
  purgeDeletedBefore:
    "DELETE FROM sessions WHERE deleted_at IS NOT NULL AND deleted_at < $1 RETURNING owner, id",
  /** Newest first; the cursor is a row-value bound so the (owner, modified_at, id) index serves every page. */
  list: `SELECT * FROM sessions
    WHERE owner = $1
      AND (modified_at, id) < ($2::text, $3::text)
      AND CASE $4::text WHEN 'active' THEN deleted_at IS NULL WHEN 'deleted' THEN deleted_at IS NOT NULL ELSE true END
      AND ($5::text IS NULL OR strpos(search_text, $5::text) > 0)
    ORDER BY modified_at DESC, id DESC
    LIMIT $6`,
  /**
   * A whole batch in one statement: parallel arrays unnested into rows. $7 is the stored count,
   * $8 the batch's first parent id, $9 the run starts of path-runs.ts `runStarts`: the batch's
   * first run (run start $7 + 1) joins the stored last entry's run when that entry is its parent.
   * The subquery names no column of `u`, so it runs once.
   */
  insertEntries: `INSERT INTO entries (session_pk, id, seq, parent_id, type, payload, run_start)
    SELECT $1, u.id, u.seq, u.parent_id, u.type, u.payload,
      CASE WHEN u.run_start = $7::integer + 1 THEN coalesce((
        SELECT coalesce(p.run_start, p.seq) FROM entries AS p
        WHERE p.session_pk = $1 AND p.seq = $7::integer AND p.id = $8::text
      ), u.run_start) ELSE u.run_start END
    FROM unnest($2::text[], $3::integer[], $4::text[], $5::text[], $6::json[], $9::integer[])
      AS u (id, seq, parent_id, type, payload, run_start)`,
  /** By `entryKey(pk, id)`: the only index on entry_key is the unique one, so the plan cannot go wrong. */
  entryExists: "SELECT 1 FROM entries WHERE entry_key = $1",
  entriesByKeys: "SELECT id, payload FROM entries WHERE entry_key = ANY ($1::text[])",
  /** Storage order after a seq, at most $3 rows (NULL: to the end). */
  entriesInOrder: "SELECT seq, payload FROM entries WHERE session_pk = $1 AND seq > $2 ORDER BY seq LIMIT $3",
  /**
   * Root → leaf a run at a time (path-runs.ts): from a run's last entry, rows run_start … seq are
   * the path, read by one range scan of the primary key; the walk goes on from the parent of the
   * run's first entry. $1 is the session pk as text, $2 the leaf id. Each LATERAL … LIMIT 1 keeps
   * the planner from turning a step into a hash join over the whole table (which it picks when the
   * table has no statistics yet: O(n) per step); OFFSET 0 keeps each run's range scan a nested
   * loop. Rows come with their seq and no ORDER BY over them (the server need not sort a
   * megabyte of payloads): runs in ascending order, each run's rows in seq order, which is root
   * first; `seqOrdered` checks it.
   */
  branch: `WITH RECURSIVE ${PATH_RUNS}
    SELECT e.seq, e.payload FROM (SELECT first, last FROM runs ORDER BY first) AS r
    CROSS JOIN LATERAL (
      SELECT seq, payload FROM entries
      WHERE session_pk = $1::bigint AND seq BETWEEN r.first AND r.last ORDER BY seq OFFSET 0
    ) AS e`,
  /**
   * `branch`'s walk, stopped at the run that holds $3 (seq `k`): its rows are the path after $3
   * plus $3 itself (its payload left out), or the whole path when $3 is not on it (k = 0 when $3
   * is no entry). A step per run, a row per entry read, so O(new).
   */
  branchSince: `WITH RECURSIVE known (k) AS (
      SELECT coalesce((SELECT seq FROM entries WHERE entry_key = $1::text || '/' || $3::text), 0)
    ),
    ${PATH_RUNS.replace("/* until */", "CROSS JOIN known WHERE runs.first > known.k OR runs.last < known.k")}
    SELECT e.seq, e.id, CASE WHEN e.seq = known.k THEN NULL ELSE e.payload END AS payload
    FROM (SELECT first, last FROM runs ORDER BY first) AS r
    CROSS JOIN known
    CROSS JOIN LATERAL (
      SELECT seq, id, payload FROM entries
      WHERE session_pk = $1::bigint
        AND seq BETWEEN CASE WHEN known.k BETWEEN r.first AND r.last THEN known.k ELSE r.first END AND r.last
      ORDER BY seq OFFSET 0
    ) AS e`,
} as const;
