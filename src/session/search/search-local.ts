import { statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { compareHits, type SearchHit } from "../../core/search-hit.js";
import { searchableText } from "../../core/search-text.js";
import { candidateDirsFor, defaultRoot, sessionsDir } from "../../file/paths.js";
import { belongsTo, sessionFilesIn, sessionFoldersIn } from "../locate.js";
import { pathPositions } from "./branch-state.js";
import { readEntryAt } from "./entry-at.js";
import { dropSearchIndex, FILE_SPAN, isDamaged, openSearchDb, type SearchDatabase } from "./index-db.js";
import {
  dropFile,
  type FileRowHead,
  HIT_KINDS,
  type RefreshOutcome,
  refreshFile,
  statCheck,
} from "./index-file.js";
import { ftsMatch, parseQuery, type SearchQuery, scopeToken } from "./query.js";
import { makeSnippet } from "./snippet.js";

export interface SearchLocalOptions {
  /** What to look for: words (all must be found), `"phrases"`, `prefix*`. */
  query: string;
  /** The sessions root (default: $SESSIONTREE_ROOT or ~/.sessiontree; a pi agent directory works too). */
  root?: string;
  /** Search these session files only, instead of every session under the root. */
  files?: readonly string[];
  /** Only sessions of this working directory (by their header, as `ls` lists them). */
  cwd?: string;
  /** At most this many hits (default 20). */
  limit?: number;
  /** Called while files are (re)indexed: 0 of `total` first, then after each file. */
  onIndexing?: (done: number, total: number) => void;
}

export interface SearchLocalResult {
  hits: SearchHit[];
  /** Files of the scope that are not sessions (no session header): not searched. */
  skipped: string[];
  /** What the refresh before the search did, file by file. */
  refreshed: Record<RefreshOutcome, number>;
}

export const DEFAULT_SEARCH_LIMIT = 20;
/**
 * A query matching more entries than this is ranked among the ones indexed last (roughly the
 * newest), so that a very common word still answers in milliseconds over a million entries: bm25
 * costs about 13 µs a row on top of one pass over the words' doclists (measured over 1M entries:
 * 20,000 rows took 420 ms for `the`, 2,000 rows 160 ms, on a loaded 2-core machine).
 */
export const RANKED_CANDIDATES = 2_000;
/** The candidates of a scope filtered after the query: taken over the whole root, so more of them. */
const RANKED_CANDIDATES_FILTERED = 20_000;
/** Up to this many sessions in scope are named in the full-text query itself; more are filtered after. */
const SCOPE_IN_QUERY = 256;

/**
 * Full-text search over local session files, ranked by relevance (BM25), then recency: every
 * message's text, tool calls and results, and summaries (`core/search-text.ts`). The index lives in
 * sessiontree's private cache directory and is brought up to date first (files that grew are read
 * from where indexing stopped, replaced ones again, deleted ones dropped), so results always reflect
 * the files; deleting the index is always safe. Each hit says whether its entry is on the path to
 * its session's leaf now, or on a branch the leaf left.
 *
 * For the CLI (`sessiontree search`), the viewer and the MCP server. Synchronous (SQLite).
 * A query with no word is an `invalid_argument` error.
 */
export function searchLocal(options: SearchLocalOptions): SearchHit[] {
  return searchLocalDetailed(options).hits;
}

/** `searchLocal` with what it skipped and what the refresh did. */
export function searchLocalDetailed(options: SearchLocalOptions): SearchLocalResult {
  const query = parseQuery(options.query);
  const root = resolve(options.root ?? defaultRoot());
  const scope = scopeFiles(root, options);
  try {
    return searchOnce(root, scope, query, options);
  } catch (error) {
    if (!isDamaged(error)) throw error;
    // A damaged index is only a cache: rebuilt from the files.
    dropSearchIndex(root);
    return searchOnce(root, scope, query, options);
  }
}

/**
 * The session files a search looks at, and the folders it lists whole (`null`: every folder of the
 * root); files the index holds in those folders but no longer listed are dropped from it.
 */
function scopeFiles(
  root: string,
  options: SearchLocalOptions,
): { files: string[]; folders: Set<string> | null } {
  if (options.files)
    return { files: [...new Set(options.files.map((file) => resolve(file)))], folders: new Set() };
  const folders =
    options.cwd !== undefined
      ? candidateDirsFor(root, resolve(options.cwd))
      : sessionFoldersIn(sessionsDir(root));
  return {
    files: folders.flatMap(sessionFilesIn).sort(),
    folders: options.cwd !== undefined ? new Set(folders) : null,
  };
}

function searchOnce(
  root: string,
  { files, folders }: { files: string[]; folders: Set<string> | null },
  query: SearchQuery,
  options: SearchLocalOptions,
): SearchLocalResult {
  const db = openSearchDb(root);
  try {
    const before = fileHeads(db);
    const { counts: refreshed, wrote } = refresh(db, before, files, folders, options.onIndexing);
    const heads = wrote ? fileHeads(db) : before;
    const scope = scopeOf(heads, files, options.cwd === undefined ? undefined : resolve(options.cwd));
    const hits = runQuery(db, query, scope, options.limit ?? DEFAULT_SEARCH_LIMIT);
    return { hits, skipped: scope.skipped, refreshed };
  } finally {
    db.close();
  }
}

/** What a search reads of every file the index holds: the small columns, from their covering index. */
interface FileHead extends FileRowHead {
  session_id: string | null;
  cwd: string | null;
}

function fileHeads(db: SearchDatabase): FileHead[] {
  return db
    .prepare("SELECT id, path, stat, version, session_id, cwd FROM files INDEXED BY files_head")
    .all() as FileHead[];
}

/**
 * Brings the index of `files` up to date. Files to read are read oldest first, so rowids follow
 * recency on a first build. Files the index holds in `folders` (null: anywhere) that are not listed
 * any more are dropped.
 */
function refresh(
  db: SearchDatabase,
  heads: readonly FileHead[],
  files: readonly string[],
  folders: Set<string> | null,
  onIndexing: SearchLocalOptions["onIndexing"],
): { counts: Record<RefreshOutcome, number>; wrote: boolean } {
  const counts: Record<RefreshOutcome, number> = { unchanged: 0, extended: 0, read: 0, gone: 0 };
  const known = new Map(heads.map((r) => [r.path, r]));
  const pending: Array<{ path: string; mtime: number }> = [];
  for (const path of files) {
    const row = known.get(path);
    const check = statCheck(path, row);
    if (check === "changed") pending.push({ path, mtime: mtimeOf(path) });
    else if (check === "unchanged") counts.unchanged++;
    else if (row) {
      db.transaction(() => dropFile(db, row.id)).immediate();
      counts.gone++;
    }
  }
  pending.sort((a, b) => a.mtime - b.mtime);
  onIndexing?.(0, pending.length);
  pending.forEach(({ path }, i) => {
    counts[refreshFile(db, path)]++;
    onIndexing?.(i + 1, pending.length);
  });
  const listed = new Set(files);
  for (const [path, row] of known) {
    if (listed.has(path) || (folders !== null && !folders.has(dirname(path)))) continue;
    db.transaction(() => dropFile(db, row.id)).immediate();
    counts.gone++;
  }
  return { counts, wrote: pending.length > 0 || counts.gone > 0 };
}

function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** The sessions a query looks in, and how they are told apart from the index's others. */
interface Scope {
  ids: number[];
  /** `none`: every session the index holds; `query`: named in the MATCH; `after`: filtered after it. */
  filter: "none" | "query" | "after";
  skipped: string[];
}

function scopeOf(rows: readonly FileHead[], files: readonly string[], cwd: string | undefined): Scope {
  const byPath = new Map(rows.map((row) => [row.path, row]));
  const ids: number[] = [];
  const skipped: string[] = [];
  for (const path of files) {
    const row = byPath.get(path);
    if (!row) continue; // went away while the search ran
    if (row.session_id === null) skipped.push(path);
    // pi's folders may hold sessions of other directories that encode alike: the header decides.
    else if (cwd === undefined || belongsTo(row.cwd ?? "", cwd)) ids.push(row.id);
  }
  const sessions = rows.filter((row) => row.session_id !== null).length;
  const filter = ids.length === sessions ? "none" : ids.length <= SCOPE_IN_QUERY ? "query" : "after";
  return { ids, filter, skipped };
}

/** How many rows tied with the last one kept are ranked further by their timestamps. */
const TIES_KEPT = 1000;

function runQuery(db: SearchDatabase, query: SearchQuery, scope: Scope, limit: number): SearchHit[] {
  if (scope.ids.length === 0 || limit <= 0) return [];
  let match = ftsMatch(query);
  if (scope.filter === "query")
    match += ` AND scope: (${scope.ids.map((id) => `"${scopeToken(id)}"`).join(" OR ")})`;
  // bm25 is computed for the newest candidates only (see RANKED_CANDIDATES); lower is better.
  const rows = db
    .prepare(
      `SELECT rowid, bm25(fts, 1.0, 0.5, 0.0) FROM fts WHERE fts MATCH ? ORDER BY rowid DESC LIMIT ${scope.filter === "after" ? RANKED_CANDIDATES_FILTERED : RANKED_CANDIDATES}`,
    )
    .raw()
    .all(match) as Array<[number, number]>;
  const wanted = new Set(scope.ids);
  const candidates =
    scope.filter === "after" ? rows.filter(([rowid]) => wanted.has(Math.floor(rowid / FILE_SPAN))) : rows;
  candidates.sort((a, b) => a[1] - b[1] || b[0] - a[0]);
  let kept = Math.min(limit, candidates.length);
  const last = candidates[kept - 1]?.[1];
  while (kept < candidates.length && kept < limit + TIES_KEPT && candidates[kept]?.[1] === last) kept++;
  // Rows of equal score are ordered as compareHits orders hits (newest first), from the index's
  // facts alone: snippets are read from the files only for the hits returned.
  const builder = new HitBuilder(db, query);
  const ranked = candidates
    .slice(0, kept)
    .map(([rowid, bm25]) => builder.candidate(rowid, bm25))
    .filter((candidate) => candidate !== null)
    .sort((a, b) => compareHits(a.hit, b.hit))
    .slice(0, limit);
  return ranked.map((candidate) => builder.complete(candidate));
}

interface EntryRow {
  entry_id: string;
  kind: number;
  ts: string;
  line: number;
  offset: number;
}

interface FileRow {
  path: string;
  session_id: string;
  cwd: string | null;
  name: string | null;
  version: number;
  leaf: number;
  parents: Buffer;
}

interface Candidate {
  hit: SearchHit;
  entry: EntryRow;
  version: number;
}

/** Turns ranked rowids into hits: the entry's facts, its branch state now, a snippet from its file. */
class HitBuilder {
  private readonly files = new Map<number, { row: FileRow; onPath: Uint8Array }>();
  private readonly entryStmt;
  private readonly fileStmt;

  constructor(
    db: SearchDatabase,
    private readonly query: SearchQuery,
  ) {
    this.entryStmt = db.prepare("SELECT entry_id, kind, ts, line, offset FROM entries WHERE rowid = ?");
    this.fileStmt = db.prepare(
      "SELECT path, session_id, cwd, name, version, leaf, parents FROM files WHERE id = ?",
    );
  }

  /** A hit without its snippet, from the index alone. */
  candidate(rowid: number, bm25: number): Candidate | null {
    const fileId = Math.floor(rowid / FILE_SPAN);
    const entry = this.entryStmt.get(rowid) as EntryRow | undefined;
    const file = this.file(fileId);
    if (!entry || !file) return null;
    const { row, onPath } = file;
    const hit: SearchHit = {
      sessionId: row.session_id,
      entryId: entry.entry_id,
      kind: HIT_KINDS[entry.kind] ?? "custom",
      snippet: "",
      branch: onPath[rowid - fileId * FILE_SPAN] === 1 ? "path" : "abandoned",
      timestamp: entry.ts,
      score: -bm25,
      path: row.path,
    };
    if (row.name !== null) hit.sessionName = row.name;
    if (row.cwd) hit.cwd = row.cwd;
    return { hit, entry, version: row.version };
  }

  /** The hit with its snippet, cut from the entry read again from its file. */
  complete({ hit, entry, version }: Candidate): SearchHit {
    const read = readEntryAt(hit.path as string, { ...entry, entryId: entry.entry_id, version });
    if (read) hit.snippet = makeSnippet(this.query, searchableText(read));
    return hit;
  }

  private file(id: number): { row: FileRow; onPath: Uint8Array } | undefined {
    let file = this.files.get(id);
    if (!file) {
      const row = this.fileStmt.get(id) as FileRow | undefined;
      if (!row) return undefined;
      file = { row, onPath: pathPositions(row.parents, row.leaf) };
      this.files.set(id, file);
    }
    return file;
  }
}
