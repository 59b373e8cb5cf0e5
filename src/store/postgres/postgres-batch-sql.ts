import type { SessionEntry } from "../../core/entry.js";
import type { FoundSession, SessionKey, StoredId } from "../engine/driver.js";
import { entryJson } from "../engine/validate-batch.js";
import { type SearchTexts, searchDocs } from "../search/search-docs.js";
import { indexedWords } from "../search/search-words.js";
import { mutableColumns, payloadToEntry, rowToSummary, type SessionRow } from "../sql/rows.js";
import type { SessionSummary } from "../store.js";
import type { PgClient } from "./connection.js";
import { runStarts } from "./path-runs.js";

/**
 * The questions of several session writes sharing one transaction (postgres-group-commit.ts), each
 * kind asked once for all of them: one statement per kind instead of one per write. Parallel arrays
 * unnested into rows, as the single-write statements do.
 */
const BATCH_SQL = {
  /** Locked in primary-key order, so two batches over the same sessions cannot deadlock. */
  lockSessions: `SELECT s.* FROM sessions s
    JOIN unnest($1::text[], $2::text[]) AS k (owner, id) ON s.owner = k.owner AND s.id = k.id
    ORDER BY s.pk FOR UPDATE OF s`,
  entriesByKeys: "SELECT session_pk, id, payload FROM entries WHERE entry_key = ANY ($1::text[])",
  /**
   * Run starts as in sql.ts `insertEntries`: `heads` ($8–$10: session, first seq, first parent) is
   * each write's first run that joins its stored last entry's run.
   */
  insertEntries: `WITH heads AS (
      SELECT h.session_pk, h.seq, p.run FROM unnest($8::bigint[], $9::integer[], $10::text[]) AS h (session_pk, seq, parent_id)
      CROSS JOIN LATERAL (
        SELECT coalesce(run_start, seq) AS run FROM entries
        WHERE session_pk = h.session_pk AND seq = h.seq - 1 AND id = h.parent_id LIMIT 1
      ) AS p
    )
    INSERT INTO entries (session_pk, id, seq, parent_id, type, payload, run_start)
    SELECT u.session_pk, u.id, u.seq, u.parent_id, u.type, u.payload, coalesce(heads.run, u.run_start)
    FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::text[], $5::text[], $6::json[], $7::integer[])
      AS u (session_pk, id, seq, parent_id, type, payload, run_start)
    LEFT JOIN heads ON heads.session_pk = u.session_pk AND heads.seq = u.run_start`,
  insertDocs: `INSERT INTO search_entries (session_pk, entry_id, kind, timestamp, body, words)
    SELECT u.session_pk, u.entry_id, u.kind, u.ts, u.body, to_tsvector('simple', u.words)
    FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
      AS u (session_pk, entry_id, kind, ts, body, words)
    ON CONFLICT DO NOTHING`,
  /** Columns in `mutableColumns` order (sql/rows.ts), after the row's pk. */
  updateSessions: `UPDATE sessions AS s SET revision = u.revision, leaf_id = u.leaf_id, name = u.name,
      modified_at = u.modified_at, deleted_at = u.deleted_at, entry_count = u.entry_count,
      message_count = u.message_count, first_message = u.first_message, search_text = u.search_text
    FROM unnest($1::bigint[], $2::integer[], $3::text[], $4::text[], $5::text[], $6::text[],
      $7::integer[], $8::integer[], $9::text[], $10::text[])
      AS u (pk, revision, leaf_id, name, modified_at, deleted_at, entry_count, message_count,
        first_message, search_text)
    WHERE s.pk = u.pk`,
} as const;

/** Each key's session, locked until the transaction ends; null where there is none. */
export async function lockSessions(
  c: PgClient,
  keys: readonly SessionKey[],
): Promise<Array<FoundSession<SessionRow> | null>> {
  const params = [keys.map((k) => k.owner), keys.map((k) => k.sessionId)];
  const rows = (await c.query(BATCH_SQL.lockSessions, params)).rows as unknown as SessionRow[];
  const byKey = new Map(rows.map((row) => [keyText(row.owner, row.id), row]));
  return keys.map((k) => {
    const row = byKey.get(keyText(k.owner, k.sessionId));
    return row ? { summary: rowToSummary(row), ref: row } : null;
  });
}

/** For each (session, ids) question, the stored entries among the ids. */
export async function entriesByIds(
  c: PgClient,
  questions: ReadonlyArray<{ ref: SessionRow; ids: readonly string[] }>,
): Promise<Array<Map<string, StoredId>>> {
  const keys = questions.flatMap(({ ref, ids }) => ids.map((id) => `${String(ref.pk)}/${id}`));
  const { rows } = await c.query(BATCH_SQL.entriesByKeys, [keys]);
  const bySession = new Map<string, Map<string, StoredId>>();
  for (const row of rows) {
    const pk = String(row.session_pk);
    const found = bySession.get(pk) ?? new Map<string, StoredId>();
    bySession.set(pk, found);
    found.set(row.id as string, payloadToEntry(row.payload));
  }
  // Each question sees only its own session's rows: the ids it did not ask for are not its business.
  return questions.map(({ ref, ids }) => {
    const found = bySession.get(String(ref.pk));
    const answer = new Map<string, StoredId>();
    for (const id of ids) {
      const stored = found?.get(id);
      if (stored !== undefined) answer.set(id, stored);
    }
    return answer;
  });
}

export interface NewEntries {
  ref: SessionRow;
  entries: readonly SessionEntry[];
  storedCount: number;
  searchTexts?: SearchTexts;
}

/** The entries of every write (seq after each session's stored count) and their search rows. */
export async function insertEntries(c: PgClient, writes: readonly NewEntries[]): Promise<void> {
  const rows = writes.flatMap(({ ref, entries, storedCount }) => {
    const starts = runStarts(entries, storedCount);
    return entries.map((entry, i) => ({ pk: ref.pk, entry, seq: storedCount + i + 1, run: starts[i] }));
  });
  const heads = writes.filter((w) => w.storedCount > 0 && w.entries[0]?.parentId);
  await c.query(BATCH_SQL.insertEntries, [
    rows.map((r) => r.pk),
    rows.map((r) => r.entry.id),
    rows.map((r) => r.seq),
    rows.map((r) => r.entry.parentId),
    rows.map((r) => r.entry.type),
    rows.map((r) => entryJson(r.entry)),
    rows.map((r) => r.run),
    heads.map((w) => w.ref.pk),
    heads.map((w) => w.storedCount + 1),
    heads.map((w) => w.entries[0]?.parentId),
  ]);
  const docs = writes.flatMap(({ ref, entries, searchTexts }) =>
    searchDocs(entries, searchTexts).map((doc) => ({ pk: ref.pk, doc })),
  );
  if (docs.length === 0) return;
  await c.query(BATCH_SQL.insertDocs, [
    docs.map((d) => d.pk),
    docs.map((d) => d.doc.entryId),
    docs.map((d) => d.doc.kind),
    docs.map((d) => d.doc.timestamp),
    docs.map((d) => d.doc.text),
    docs.map((d) => indexedWords(d.doc.text)),
  ]);
}

/** Every write's new summary, in one statement. */
export async function updateSessions(
  c: PgClient,
  updates: ReadonlyArray<{ ref: SessionRow; next: SessionSummary }>,
): Promise<void> {
  const rows = updates.map(({ ref, next }) => [ref.pk, ...mutableColumns(next)]);
  const columns = Array.from({ length: 10 }, (_, i) => rows.map((row) => row[i]));
  await c.query(BATCH_SQL.updateSessions, columns);
}

function keyText(owner: string, sessionId: string): string {
  return `${owner}\u0000${sessionId}`;
}
