/**
 * Every statement the SQLite store runs: fixed text, values only through parameters.
 * Columns of `updateSession` follow `mutableColumns` in sql/rows.ts.
 */
export const SQL = {
  findSession: "SELECT * FROM sessions WHERE owner = ? AND id = ?",
  insertSession: `INSERT INTO sessions (owner, id, cwd, parent_session, created_at, header,
      revision, leaf_id, name, modified_at, deleted_at, entry_count, message_count, first_message, search_text)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk`,
  updateSession: `UPDATE sessions SET revision = ?, leaf_id = ?, name = ?, modified_at = ?, deleted_at = ?,
      entry_count = ?, message_count = ?, first_message = ?, search_text = ?
    WHERE pk = ?`,
  deleteSession: "DELETE FROM sessions WHERE pk = ?",
  deleteEntries: "DELETE FROM entries WHERE session_pk = ?",
  deletedBefore: "SELECT pk, owner, id FROM sessions WHERE deleted_at IS NOT NULL AND deleted_at < ?",
  /** Newest first; the cursor is a row-value bound so the (owner, modified_at, id) index serves every page. */
  list: `SELECT * FROM sessions
    WHERE owner = @owner
      AND (modified_at, id) < (@afterModified, @afterId)
      AND CASE @state WHEN 'active' THEN deleted_at IS NULL WHEN 'deleted' THEN deleted_at IS NOT NULL ELSE 1 END
      AND (@search IS NULL OR instr(search_text, @search) > 0)
    ORDER BY modified_at DESC, id DESC
    LIMIT @limit`,
  insertEntry:
    "INSERT INTO entries (session_pk, id, seq, parent_id, type, payload) VALUES (?, ?, ?, ?, ?, ?)",
  entryExists: "SELECT 1 FROM entries WHERE session_pk = ? AND id = ?",
  /** The stored entries among a JSON array of ids: one statement for any batch size. */
  entriesByIds:
    "SELECT id, payload FROM entries WHERE session_pk = ? AND id IN (SELECT value FROM json_each(?))",
  /** Storage order from a seq (exclusive); a limit of -1 reads to the end. */
  entriesInOrder: "SELECT seq, payload FROM entries WHERE session_pk = ? AND seq > ? ORDER BY seq LIMIT ?",
  /** Root → leaf by walking parent ids from the leaf: one primary-key lookup per step, no other branch read. */
  branch: `WITH RECURSIVE path (id, parent_id, payload, depth) AS (
      SELECT id, parent_id, payload, 0 FROM entries WHERE session_pk = @session AND id = @leaf
      UNION ALL
      SELECT e.id, e.parent_id, e.payload, path.depth + 1
        FROM entries e JOIN path ON e.session_pk = @session AND e.id = path.parent_id
    )
    SELECT payload FROM path ORDER BY depth DESC`,
  /**
   * `branch`'s walk, stopped at @known: its rows are the path after @known plus @known itself (its
   * payload left out), or the whole path when @known is not on it. A step per row, so O(new).
   */
  branchSince: `WITH RECURSIVE path (id, parent_id, payload, depth) AS (
      SELECT id, parent_id, payload, 0 FROM entries WHERE session_pk = @session AND id = @leaf
      UNION ALL
      SELECT e.id, e.parent_id, e.payload, path.depth + 1
        FROM entries e JOIN path ON e.session_pk = @session AND e.id = path.parent_id
        WHERE path.id <> @known
    )
    SELECT id, CASE WHEN id = @known THEN NULL ELSE payload END AS payload FROM path ORDER BY depth DESC`,
} as const;
