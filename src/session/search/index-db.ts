import { createHash } from "node:crypto";
import { closeSync, openSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import { cacheRoot, ensurePrivateDir } from "../../file/cache-dir.js";

/**
 * The local search index: one SQLite database per sessions root in sessiontree's private cache
 * directory (`<cache>/search/<hash of the root>.sqlite`), never beside the sessions. It is only a
 * cache of the files (checked by their stamps on every search), so deleting it is always safe: the
 * next search rebuilds it. A database of another schema version, or a damaged one, is deleted and
 * rebuilt; when the cache cannot be written the index lives in memory for the one search.
 *
 * Tables:
 * - `files`: one row per file read: its stamp (file/file-stamp.ts) and the part of it a stat checks
 *   (`stat`: inode, size, mtime, compared as a string), where reading stopped, its header facts,
 *   session name, and its tree reduced to what a hit's branch state needs: entry ids
 *   and parent ids in file order (to extend it when the file grows), each entry's parent position
 *   and the leaf's position (to walk the leaf's path at query time).
 * - `entries`: one row per searchable entry: id, kind, timestamp, where its line is in the file.
 * - `fts`: FTS5 over the searchable text (`body`), the camelCase parts of its words (`parts`) and a
 *   token naming the file (`scope`, to search some sessions only). Contentless: the text is not
 *   kept twice; a hit's snippet is cut from the entry read again from its file. Prefix indexes of
 *   3 and 5 characters: a prefix query of 2 to 5 characters reads one prefix doclist instead of
 *   merging those of every word it starts, twice (once to match, once for bm25's document count):
 *   `pars*` over 1M entries, where `parse` is in a third of them (see docs/search.md).
 * - `files_head`: the small columns of `files`, which every search reads for every file (a `files`
 *   row holds a file's ids, so reading the table itself goes through megabytes of overflow pages).
 *
 * A searchable entry's rowid is `file id × 2^26 + its position in the file`, so a file's rows are one
 * rowid range (dropped at once), and later files have larger rowids (roughly: newer).
 */
export const SCHEMA_VERSION = 2;
/** Positions per file: a file of more entries (some GB) is indexed up to here. */
export const FILE_SPAN = 2 ** 26;

export type SearchDatabase = Database.Database;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS files (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  path TEXT NOT NULL UNIQUE,
  stamp TEXT NOT NULL,
  stat TEXT NOT NULL,
  lines INTEGER NOT NULL,
  version INTEGER NOT NULL,
  session_id TEXT,
  cwd TEXT,
  name TEXT,
  count INTEGER NOT NULL,
  leaf INTEGER NOT NULL,
  ids TEXT NOT NULL,
  parent_ids TEXT NOT NULL,
  parents BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS entries (
  rowid INTEGER PRIMARY KEY,
  entry_id TEXT NOT NULL,
  kind INTEGER NOT NULL,
  ts TEXT NOT NULL,
  line INTEGER NOT NULL,
  offset INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS files_head ON files (path, id, stat, version, session_id, cwd);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
  body, parts, scope, content='', contentless_delete=1, prefix='3 5',
  tokenize='unicode61 remove_diacritics 2'
);
`;

/** The path of the index of `root`, or null when the cache directory cannot be made. */
export function indexPathFor(root: string): string | null {
  const dir = join(cacheRoot(), "search");
  if (!ensurePrivateDir(dir)) return null;
  const key = createHash("sha256").update(resolve(root)).digest("hex").slice(0, 40);
  return join(dir, `${key}.sqlite`);
}

/** Opens (creating or rebuilding as needed) the index of `root`. */
export function openSearchDb(root: string): SearchDatabase {
  const path = indexPathFor(root);
  if (path !== null) {
    try {
      return openAt(path);
    } catch {
      // Damaged, of another version, or locked out: start again from the files.
      dropIndexFile(path);
      try {
        return openAt(path);
      } catch {
        // Cannot be written: fall through to a database in memory.
      }
    }
  }
  return prepare(new Database(":memory:"));
}

function openAt(path: string): SearchDatabase {
  // Created private (0600) before SQLite opens it: the index holds words of every message.
  closeSync(openSync(path, "a", 0o600));
  const db = new Database(path);
  try {
    db.pragma("busy_timeout = 10000");
    const version = db.pragma("user_version", { simple: true }) as number;
    if (version !== 0 && version !== SCHEMA_VERSION) throw new Error(`index schema ${version}`);
    db.pragma("journal_mode = WAL");
    // A cache: losing the last transactions to a power cut only means reading those files again.
    db.pragma("synchronous = OFF");
    return prepare(db);
  } catch (error) {
    db.close();
    throw error;
  }
}

function prepare(db: SearchDatabase): SearchDatabase {
  db.exec(SCHEMA);
  // Set once: a write on every open would make each search a writer (and its close a checkpoint).
  if (db.pragma("user_version", { simple: true }) !== SCHEMA_VERSION)
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  return db;
}

/** Deletes the index of `root` (the next search rebuilds it). */
export function dropSearchIndex(root: string): void {
  const path = indexPathFor(root);
  if (path !== null) dropIndexFile(path);
}

function dropIndexFile(path: string): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
}

/** Whether an error says the database file is damaged or not a database (then it is rebuilt). */
export function isDamaged(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && /^SQLITE_(CORRUPT|NOTADB)/.test(code);
}
