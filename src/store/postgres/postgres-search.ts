import type { SessionEntry } from "../../core/entry.js";
import { compareHits, type SearchHit } from "../../core/search-hit.js";
import { sessionFields } from "../search/scan-search.js";
import { type SearchTexts, searchDocs } from "../search/search-docs.js";
import { SEARCH_WINDOW, type SearchQuery } from "../search/search-query.js";
import { indexedWords } from "../search/search-words.js";
import { markSnippet } from "../search/snippet.js";
import { payloadToEntry } from "../sql/rows.js";
import { inTransaction, type PgClient, type PgPool } from "./connection.js";
import { searchWindows, WINDOW_STEPS, type WindowSteps } from "./postgres-search-window.js";

/**
 * Full-text search on PostgreSQL (schema step 3): `search_entries`, one row per entry with
 * searchable text, its words and identifier pieces (`indexedWords`) as a 'simple' tsvector under a
 * GIN index. Rows go with their session (ON DELETE CASCADE); branch state is computed from the leaf
 * at query time.
 */

const INSERT_CHUNK = 500;

/**
 * The newest `window` matches of the owner's visible sessions above doc `$7` (none: the whole
 * table; see postgres-search-window.ts), then the best `limit` of them by ts_rank, then their text,
 * each row with `found`, how many matches the window held. The tsquery and the bound are literals
 * the planner sees (parameters of an unnamed statement).
 */
const SEARCH_SQL = `WITH top AS MATERIALIZED (
    SELECT e.doc, e.session_pk, e.entry_id, e.kind, e.timestamp, e.words
    FROM search_entries e JOIN sessions s ON s.pk = e.session_pk
    WHERE e.words @@ to_tsquery('simple', $2)
      AND s.owner = $1
      AND ($3::text IS NULL OR s.id = $3::text)
      AND ($4::boolean OR s.deleted_at IS NULL)
      AND ($7::bigint IS NULL OR e.doc > $7::bigint)
    ORDER BY e.doc DESC
    LIMIT $5
  ),
  best AS MATERIALIZED (
    SELECT doc, session_pk, entry_id, kind, timestamp, ts_rank(words, to_tsquery('simple', $2)) AS score
    FROM top
    ORDER BY score DESC, timestamp DESC
    LIMIT $6
  )
  SELECT s.pk, s.id AS session_id, s.leaf_id, s.name, s.cwd, s.archived_at,
    b.entry_id, b.kind, b.timestamp, b.score, e.body, (SELECT count(*) FROM top) AS found
  FROM best b JOIN sessions s ON s.pk = b.session_pk JOIN search_entries e ON e.doc = b.doc`;

const PG_SEARCH_SQL = {
  search: SEARCH_SQL,
  insertDocs: `INSERT INTO search_entries (session_pk, entry_id, kind, timestamp, body, words)
    SELECT $1, u.entry_id, u.kind, u.ts, u.body, to_tsvector('simple', u.words)
    FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS u (entry_id, kind, ts, body, words)
    ON CONFLICT DO NOTHING`,
  dropDocs: "DELETE FROM search_entries WHERE session_pk = $1",
  /** A few sessions of the backlog, their rows locked as a writer locks them (so no write races the re-index). */
  backlog: `SELECT s.pk FROM search_backlog b JOIN sessions s ON s.pk = b.session_pk
    ORDER BY b.session_pk LIMIT 20 FOR UPDATE OF s SKIP LOCKED`,
  dropBacklog: "DELETE FROM search_backlog WHERE session_pk = $1",
  entriesOf: "SELECT payload FROM entries WHERE session_pk = $1 ORDER BY seq",
  /**
   * For (session, leaf, hit id) triples: the hits on their session's path root → leaf, for every
   * session at once. Each walk stops at its oldest hit (a parent is always stored before its child,
   * so nothing above it is a hit): hits are mostly recent, the walks short.
   */
  onPath: `WITH RECURSIVE hits (pk, leaf, id) AS (
      SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[])
    ),
    floors AS (
      SELECT h.pk, h.leaf, min(e.seq) AS floor
      FROM hits h JOIN entries e ON e.entry_key = h.pk::text || '/' || h.id
      GROUP BY h.pk, h.leaf
    ),
    path (pk, id, parent_id, seq, floor) AS (
      SELECT f.pk, e.id, e.parent_id, e.seq, f.floor
      FROM floors f JOIN entries e ON e.entry_key = f.pk::text || '/' || f.leaf
      UNION ALL
      SELECT p.pk, e.id, e.parent_id, e.seq, p.floor FROM path p CROSS JOIN LATERAL (
        SELECT id, parent_id, seq FROM entries WHERE entry_key = p.pk::text || '/' || p.parent_id LIMIT 1
      ) AS e
      WHERE p.seq > p.floor
    )
    SELECT p.pk, p.id FROM path p JOIN hits h ON h.pk = p.pk AND h.id = p.id`,
} as const;

/** Indexes new entries of a session, in the caller's transaction; an entry indexed already keeps its row. */
export async function indexEntries(
  c: PgClient,
  pk: unknown,
  entries: readonly SessionEntry[],
  texts?: SearchTexts,
): Promise<void> {
  const docs = searchDocs(entries, texts);
  for (let start = 0; start < docs.length; start += INSERT_CHUNK) {
    const part = docs.slice(start, start + INSERT_CHUNK);
    await c.query(PG_SEARCH_SQL.insertDocs, [
      pk,
      part.map((d) => d.entryId),
      part.map((d) => d.kind),
      part.map((d) => d.timestamp),
      part.map((d) => d.text),
      part.map((d) => indexedWords(d.text)),
    ]);
  }
}

/**
 * Indexes the sessions stored before schema step 3, a few per transaction, each from scratch,
 * with its session row locked; instances starting together share the work (SKIP LOCKED).
 */
export async function drainSearchBacklog(pool: PgPool): Promise<number> {
  let done = 0;
  for (;;) {
    const count = await inTransaction(pool, "read committed", async (c) => {
      const { rows } = await c.query(PG_SEARCH_SQL.backlog);
      for (const { pk } of rows) {
        await c.query(PG_SEARCH_SQL.dropDocs, [pk]);
        const entries = (await c.query(PG_SEARCH_SQL.entriesOf, [pk])).rows.map((r) =>
          payloadToEntry(r.payload),
        );
        await indexEntries(c, pk, entries);
        await c.query(PG_SEARCH_SQL.dropBacklog, [pk]);
      }
      return rows.length;
    });
    if (count === 0) return done;
    done += count;
  }
}

interface HitRow {
  pk: string;
  session_id: string;
  leaf_id: string | null;
  name: string | null;
  cwd: string;
  archived_at: string | null;
  entry_id: string;
  kind: SearchHit["kind"];
  timestamp: string;
  score: number;
  body: string;
  found: string;
}

/** The tsquery text: per term, its alternatives as phrases (`<->`, OR'ed), every term required. */
export function tsQueryText(phrases: readonly string[][][]): string {
  const phrase = (words: readonly string[]) =>
    words.map((word) => `'${word.replace(/'/g, "''")}'`).join(" <-> ");
  return phrases.map((alternatives) => `(${alternatives.map(phrase).join(" | ")})`).join(" & ");
}

/**
 * The search and the branch state of its hits, from one snapshot: over the whole owner's history
 * in growing windows of the newest rows (`steps`), in one session through its key.
 */
export function searchPostgres(
  pool: PgPool,
  query: SearchQuery,
  steps: Readonly<WindowSteps> = WINDOW_STEPS,
): Promise<SearchHit[]> {
  const window = Math.max(SEARCH_WINDOW, query.limit);
  const params = [
    query.owner,
    tsQueryText(query.phrases),
    query.sessionId,
    query.includeDeleted,
    window,
    query.limit,
  ];
  return inTransaction(pool, "repeatable read read only", async (c) => {
    // One session's rows are found through its key: windows of the whole table would mostly miss it.
    const rows =
      query.sessionId !== null
        ? ((await c.query(PG_SEARCH_SQL.search, [...params, null])).rows as unknown as HitRow[])
        : await searchWindows<HitRow>(c, PG_SEARCH_SQL.search, params, window, steps);
    const onPath = await pathMembers(c, rows);
    return rows
      .map(
        (row): SearchHit => ({
          sessionId: row.session_id,
          entryId: row.entry_id,
          kind: row.kind,
          snippet: markSnippet(row.body, query.phrases),
          branch: onPath(row) ? "path" : "abandoned",
          timestamp: row.timestamp,
          score: Number(row.score),
          ...sessionFields(row),
        }),
      )
      .sort(compareHits);
  });
}

/** One walk from the leaf per session among the hits, all in one statement; archived sessions' hits count as on the path. */
async function pathMembers(c: PgClient, rows: readonly HitRow[]): Promise<(row: HitRow) => boolean> {
  const walked = rows.filter((row) => row.leaf_id !== null && !row.archived_at);
  const members = new Set<string>();
  if (walked.length > 0) {
    const { rows: found } = await c.query(PG_SEARCH_SQL.onPath, [
      walked.map((row) => row.pk),
      walked.map((row) => row.leaf_id),
      walked.map((row) => row.entry_id),
    ]);
    for (const { pk, id } of found) members.add(`${String(pk)}/${String(id)}`);
  }
  return (row) =>
    (Boolean(row.archived_at) && row.leaf_id !== null) || members.has(`${String(row.pk)}/${row.entry_id}`);
}
