import type { SessionEntry } from "../../core/entry.js";
import { compareHits, type SearchHit } from "../../core/search-hit.js";
import { sessionFields } from "../search/scan-search.js";
import { type SearchTexts, searchDocs } from "../search/search-docs.js";
import { SEARCH_WINDOW, type SearchQuery } from "../search/search-query.js";
import { indexedWords } from "../search/search-words.js";
import { markSnippet, relevance, termPatterns } from "../search/snippet.js";
import { payloadToEntry } from "../sql/rows.js";
import type { Statements } from "./statements.js";

/**
 * Full-text search on SQLite (schema step 3): `search_rows` (one row per entry with searchable
 * text, keyed by session and entry id, with the text) and `search_fts`, a contentless FTS5 table of
 * the entry's words and identifier pieces (`indexedWords`) whose rowid is the row's `doc`. Written
 * in the same transaction as the entries; removed with the session on purge. Branch state is not
 * stored: it is computed from the leaf at query time.
 */
const SEARCH_SQL = {
  insertRow: `INSERT INTO search_rows (doc, session_pk, entry_id, kind, timestamp, body) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT DO NOTHING RETURNING doc`,
  lowestDoc: "SELECT coalesce(min(doc), 0) AS doc FROM search_rows",
  dropWords: "DELETE FROM search_fts WHERE rowid IN (SELECT doc FROM search_rows WHERE session_pk = ?)",
  dropRows: "DELETE FROM search_rows WHERE session_pk = ?",
  dropBacklog: "DELETE FROM search_backlog WHERE session_pk = ?",
  backlog: "SELECT session_pk FROM search_backlog ORDER BY session_pk LIMIT ?",
  entriesOf: "SELECT payload FROM entries WHERE session_pk = ? ORDER BY seq",
  /**
   * The newest `window` matches of the owner's visible sessions, with their text: docs count down
   * (see `indexEntries`), so FTS5 walks its doclists forwards, the order in which it can seek, and
   * stops there; CROSS JOIN keeps that order. One session: only its range of docs is read. They
   * are ranked here (`relevance`), not by bm25, whose document frequencies read every match.
   */
  search: `SELECT s.id AS session_id, s.pk, s.leaf_id, s.name, s.cwd, s.archived_at,
      r.entry_id, r.kind, r.timestamp, r.body
    FROM search_fts CROSS JOIN search_rows r CROSS JOIN sessions s
    WHERE search_fts MATCH @match AND search_fts.rowid BETWEEN @lo AND @hi
      AND r.doc = search_fts.rowid AND s.pk = r.session_pk
      AND s.owner = @owner
      AND (@sessionId IS NULL OR s.id = @sessionId)
      AND (@includeDeleted = 1 OR s.deleted_at IS NULL)
    ORDER BY search_fts.rowid
    LIMIT @window`,
  docRange: `SELECT min(r.doc) AS lo, max(r.doc) AS hi
    FROM sessions s JOIN search_rows r ON r.session_pk = s.pk WHERE s.owner = ? AND s.id = ?`,
  /**
   * Where a session's walk would go: the leaf's seq, the oldest hit's (`floor`), and the span of
   * the session's seqs (how many rows a scan of it reads).
   */
  walkSpan: `SELECT (SELECT seq FROM entries WHERE session_pk = @session AND id = @leaf) AS leaf,
      (SELECT min(seq) FROM entries WHERE session_pk = @session AND id IN (SELECT value FROM json_each(@ids))) AS floor,
      (SELECT min(seq) FROM entries WHERE session_pk = @session) AS first,
      (SELECT max(seq) FROM entries WHERE session_pk = @session) AS last`,
  /**
   * A session's links from the oldest hit to the leaf (nothing newer is its ancestor), in one pass
   * over its rows in key order (`seq + 0`: not through the seq index, which would look every row up
   * again by its key).
   */
  links: `SELECT id, parent_id, seq FROM entries
    WHERE session_pk = @session AND seq + 0 BETWEEN @floor AND @leaf`,
  /**
   * Which of the ids lie on the path root → leaf: the walk of a branch read, ids only, stopping at
   * the oldest hit (a parent is always stored before its child, so nothing above it is a hit).
   */
  onPath: `WITH RECURSIVE floor (seq) AS (
      SELECT min(seq) FROM entries WHERE session_pk = @session AND id IN (SELECT value FROM json_each(@ids))
    ),
    path (id, parent_id, seq) AS (
      SELECT id, parent_id, seq FROM entries WHERE session_pk = @session AND id = @leaf
      UNION ALL
      SELECT e.id, e.parent_id, e.seq FROM path JOIN entries e ON e.session_pk = @session AND e.id = path.parent_id
      WHERE path.seq > (SELECT seq FROM floor)
    )
    SELECT id FROM path WHERE id IN (SELECT value FROM json_each(@ids))`,
} as const;

/**
 * Indexes new entries of a session; an entry indexed already keeps its row (an archive restore).
 * Docs count down: the batch takes the numbers below the lowest, its newest entry the lowest. The
 * FTS5 rows wait for the end of the write transaction (`q.searchWords`, pending-words.ts), which
 * writes them in ascending rowid order (a lower rowid than the last one written would make FTS5
 * flush a segment per row).
 */
export function indexEntries(
  q: Statements,
  pk: number | string,
  entries: readonly SessionEntry[],
  texts?: SearchTexts,
): void {
  const docs = searchDocs(entries, texts);
  if (docs.length === 0) return;
  const row = q.statement(SEARCH_SQL.insertRow);
  const lowest = q.all<{ doc: number }>(SEARCH_SQL.lowestDoc)[0]?.doc ?? 0;
  let next = lowest - docs.length;
  for (const doc of docs.reverse()) {
    const inserted = row.get(next++, pk, doc.entryId, doc.kind, doc.timestamp, doc.text) as
      | { doc: number }
      | undefined;
    if (inserted) q.searchWords.add(inserted.doc, indexedWords(doc.text));
  }
}

/** Removes a session's index rows (purge), after writing the held words (some may be the session's). */
export function dropIndex(q: Statements, pk: number | string): void {
  q.searchWords.flush();
  q.run(SEARCH_SQL.dropWords, pk);
  q.run(SEARCH_SQL.dropRows, pk);
  q.run(SEARCH_SQL.dropBacklog, pk);
}

/**
 * Indexes the sessions stored before schema step 3, a few per transaction, each from scratch (so a
 * write that indexed some of its entries meanwhile is no duplicate). Archived sessions have no
 * entries in the database: they are indexed when restored. Returns how many sessions it indexed.
 */
export function drainSearchBacklog(q: Statements, perTransaction = 50): number {
  let done = 0;
  for (;;) {
    const batch = q.all<{ session_pk: number }>(SEARCH_SQL.backlog, perTransaction);
    if (batch.length === 0) return done;
    try {
      q.db
        .transaction(() => {
          for (const { session_pk: pk } of batch) {
            q.run(SEARCH_SQL.dropWords, pk);
            q.run(SEARCH_SQL.dropRows, pk);
            const entries = q
              .all<{ payload: string }>(SEARCH_SQL.entriesOf, pk)
              .map((r) => payloadToEntry(r.payload));
            indexEntries(q, pk, entries);
            q.run(SEARCH_SQL.dropBacklog, pk);
          }
          q.searchWords.flush();
        })
        .immediate();
    } finally {
      q.searchWords.discard();
    }
    done += batch.length;
  }
}

interface HitRow {
  session_id: string;
  pk: number;
  leaf_id: string | null;
  name: string | null;
  cwd: string;
  archived_at: string | null;
  entry_id: string;
  kind: SearchHit["kind"];
  timestamp: string;
  body: string;
}

/** The FTS5 query: per term, its alternatives as quoted phrases (OR), every term required (AND). */
export function ftsMatch(phrases: readonly string[][][]): string {
  return phrases
    .map(
      (alternatives) => `(${alternatives.map((p) => `"${p.join(" ").replace(/"/g, '""')}"`).join(" OR ")})`,
    )
    .join(" AND ");
}

/** The search, inside the caller's read snapshot. */
export function searchSqlite(q: Statements, query: SearchQuery): SearchHit[] {
  const range =
    query.sessionId === null
      ? { lo: Number.MIN_SAFE_INTEGER, hi: Number.MAX_SAFE_INTEGER }
      : q.all<{ lo: number | null; hi: number | null }>(SEARCH_SQL.docRange, query.owner, query.sessionId)[0];
  if (!range || range.lo === null || range.hi === null) return [];
  const rows = q.all<HitRow>(SEARCH_SQL.search, {
    match: ftsMatch(query.phrases),
    lo: range.lo,
    hi: range.hi,
    owner: query.owner,
    sessionId: query.sessionId,
    includeDeleted: query.includeDeleted ? 1 : 0,
    window: Math.max(SEARCH_WINDOW, query.limit),
  });
  const average = rows.reduce((sum, row) => sum + row.body.length, 0) / Math.max(1, rows.length);
  const patterns = termPatterns(query.phrases);
  const ranked = rows
    .map((row) => ({ row, score: relevance(row.body, patterns, average) }))
    .sort((a, b) => b.score - a.score || (a.row.timestamp < b.row.timestamp ? 1 : -1))
    .slice(0, query.limit);
  const onPath = pathMembers(
    q,
    ranked.map(({ row }) => row),
  );
  return ranked
    .map(
      ({ row, score }): SearchHit => ({
        sessionId: row.session_id,
        entryId: row.entry_id,
        kind: row.kind,
        snippet: markSnippet(row.body, query.phrases),
        branch: onPath(row) ? "path" : "abandoned",
        timestamp: row.timestamp,
        score,
        ...sessionFields(row),
      }),
    )
    .sort(compareHits);
}

/**
 * Whether each hit lies on its session's path now: one walk from the leaf per session among the
 * hits. An archived session's entries are in object storage: its hits count as on the path.
 */
function pathMembers(q: Statements, rows: readonly HitRow[]): (row: HitRow) => boolean {
  const bySession = new Map<number, HitRow[]>();
  for (const row of rows) bySession.set(row.pk, [...(bySession.get(row.pk) ?? []), row]);
  const members = new Set<string>();
  for (const [pk, hits] of bySession) {
    const first = hits[0];
    if (!first || first.leaf_id === null || first.archived_at) continue;
    const ids = hits.map((hit) => hit.entry_id);
    for (const id of pathIds(q, pk, first.leaf_id, ids)) members.add(`${pk}/${id}`);
  }
  return (row) =>
    (Boolean(row.archived_at) && row.leaf_id !== null) || members.has(`${row.pk}/${row.entry_id}`);
}

/**
 * A step of the walk by key (the recursive statement) costs about what reading this many rows of
 * the session in one pass does (measured: 500 steps 2.5 ms, a 500-row session read 0.9 ms).
 */
const STEP_COST_IN_ROWS = 2;

/**
 * The hits `ids` of one session that lie on its path root → leaf. A walk from the leaf down to the
 * oldest hit reads at most the rows between them: when that is a good part of the session, its
 * links are read in one pass and walked here instead (the same walk, the same answer).
 */
function pathIds(q: Statements, session: number, leaf: string, ids: readonly string[]): string[] {
  const json = JSON.stringify(ids);
  const span = q.get<{ leaf: number | null; floor: number | null; first: number; last: number }>(
    SEARCH_SQL.walkSpan,
    { session, leaf, ids: json },
  );
  if (!span || span.leaf === null || span.floor === null) return [];
  const steps = span.leaf - span.floor + 1;
  if (steps * STEP_COST_IN_ROWS < span.last - span.first + 1)
    return q.all<{ id: string }>(SEARCH_SQL.onPath, { session, leaf, ids: json }).map((row) => row.id);
  const links = new Map<string, { parent_id: string | null; seq: number }>();
  for (const row of q.all<{ id: string; parent_id: string | null; seq: number }>(SEARCH_SQL.links, {
    session,
    floor: span.floor,
    leaf: span.leaf,
  }))
    links.set(row.id, row);
  // As the recursive statement walks: the leaf, then parents while the row left is above the floor.
  const wanted = new Set(ids);
  const found: string[] = [];
  let at: string | null = leaf;
  for (let step = 0; at !== null && step <= links.size; step++) {
    const link = links.get(at);
    if (!link) break;
    if (wanted.has(at)) found.push(at);
    at = link.seq > span.floor ? link.parent_id : null;
  }
  return found;
}
