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
  /** A whole batch in one statement: parallel arrays unnested into rows. */
  insertEntries: `INSERT INTO entries (session_pk, id, seq, parent_id, type, payload)
    SELECT $1, u.id, u.seq, u.parent_id, u.type, u.payload
    FROM unnest($2::text[], $3::integer[], $4::text[], $5::text[], $6::json[]) AS u (id, seq, parent_id, type, payload)`,
  /** By `entryKey(pk, id)`: the only index on entry_key is the unique one, so the plan cannot go wrong. */
  entryExists: "SELECT 1 FROM entries WHERE entry_key = $1",
  entriesByKeys: "SELECT id, payload FROM entries WHERE entry_key = ANY ($1::text[])",
  /** Storage order after a seq, at most $3 rows (NULL: to the end). */
  entriesInOrder: "SELECT seq, payload FROM entries WHERE session_pk = $1 AND seq > $2 ORDER BY seq LIMIT $3",
  /**
   * Root → leaf by walking parent ids from the leaf: one unique-index lookup per step, no other
   * branch read. The LATERAL … LIMIT 1 keeps the planner from turning the step into a hash join
   * over the whole table (which it picks when the table has no statistics yet: O(n) per step).
   * Rows come with their depth and no ORDER BY: the server need not sort a path's payloads (a
   * megabyte at 2,000 entries) when the client can order them by depth; `rootFirst` does.
   */
  branch: `WITH RECURSIVE path (id, parent_id, payload, depth) AS (
      SELECT id, parent_id, payload, 0 FROM entries WHERE entry_key = $1::text || '/' || $2::text
      UNION ALL
      SELECT e.id, e.parent_id, e.payload, path.depth + 1
        FROM path CROSS JOIN LATERAL (
          SELECT id, parent_id, payload FROM entries WHERE entry_key = $1::text || '/' || path.parent_id LIMIT 1
        ) AS e
    )
    SELECT payload, depth FROM path`,
  /**
   * `branch`'s walk, stopped at $3: its rows are the path after $3 plus $3 itself (its payload left
   * out), or the whole path when $3 is not on it. A step per row, so O(new).
   */
  branchSince: `WITH RECURSIVE path (id, parent_id, payload, depth) AS (
      SELECT id, parent_id, payload, 0 FROM entries WHERE entry_key = $1::text || '/' || $2::text
      UNION ALL
      SELECT e.id, e.parent_id, e.payload, path.depth + 1
        FROM path CROSS JOIN LATERAL (
          SELECT id, parent_id, payload FROM entries WHERE entry_key = $1::text || '/' || path.parent_id LIMIT 1
        ) AS e
        WHERE path.id <> $3::text
    )
    SELECT id, CASE WHEN id = $3::text THEN NULL ELSE payload END AS payload FROM path ORDER BY depth DESC`,
} as const;
