import type { Migration, MigrationSet } from "../migrations.js";

/**
 * SQLite's schema, step by step. Sessions carry their summary (counts, first message, name,
 * search text) so listing never reads entries; entries are keyed by (session, id) for the
 * recursive branch walk and by (session, seq) for storage order.
 */
export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "sessions and entries",
    statements: [
      `CREATE TABLE sessions (
        pk INTEGER PRIMARY KEY AUTOINCREMENT,
        owner TEXT NOT NULL,
        id TEXT NOT NULL,
        revision INTEGER NOT NULL,
        leaf_id TEXT,
        name TEXT,
        cwd TEXT NOT NULL,
        parent_session TEXT,
        created_at TEXT NOT NULL,
        modified_at TEXT NOT NULL,
        deleted_at TEXT,
        header TEXT NOT NULL,
        entry_count INTEGER NOT NULL,
        message_count INTEGER NOT NULL,
        first_message TEXT NOT NULL,
        search_text TEXT NOT NULL,
        UNIQUE (owner, id)
      )`,
      "CREATE INDEX sessions_owner_modified ON sessions (owner, modified_at, id)",
      "CREATE INDEX sessions_deleted_at ON sessions (deleted_at) WHERE deleted_at IS NOT NULL",
      `CREATE TABLE entries (
        session_pk INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
        id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        parent_id TEXT,
        type TEXT NOT NULL,
        payload TEXT NOT NULL,
        PRIMARY KEY (session_pk, id),
        UNIQUE (session_pk, seq)
      ) WITHOUT ROWID`,
    ],
  },
  {
    version: 2,
    name: "blob claims, blob references, archive columns",
    statements: [
      // See store/blob/blob-claims.ts: one row per blob an owner may reference; `state` is 'live'
      // or 'deleting' (a collection holds it), `token` changes only when a collection takes it.
      `CREATE TABLE blob_claims (
        owner TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        size INTEGER NOT NULL,
        claimed_at TEXT NOT NULL,
        state TEXT NOT NULL,
        token TEXT NOT NULL,
        PRIMARY KEY (owner, sha256)
      ) WITHOUT ROWID`,
      `CREATE TABLE blob_refs (
        session_pk INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
        sha256 TEXT NOT NULL,
        PRIMARY KEY (session_pk, sha256)
      ) WITHOUT ROWID`,
      "CREATE INDEX blob_refs_sha256 ON blob_refs (sha256)",
      "ALTER TABLE sessions ADD COLUMN archived_at TEXT",
      "ALTER TABLE sessions ADD COLUMN archive_sha256 TEXT",
    ],
  },
  {
    version: 3,
    name: "full-text search",
    statements: [
      // One row per entry with searchable text (see store/search/); `doc` is its FTS5 rowid, given
      // in write order, so the newest matches are the highest docs. `body` is the text snippets
      // are cut from (last: a candidate row is read without its overflow pages).
      `CREATE TABLE search_rows (
        doc INTEGER PRIMARY KEY,
        session_pk INTEGER NOT NULL,
        entry_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        timestamp TEXT NOT NULL,
        body TEXT NOT NULL,
        UNIQUE (session_pk, entry_id)
      )`,
      // Words and identifier pieces (store/search/search-words.ts), contentless: the text is in
      // search_rows once. remove_diacritics 0: the same words as PostgreSQL and the scan.
      `CREATE VIRTUAL TABLE search_fts USING fts5(words, content = '', contentless_delete = 1,
        tokenize = 'unicode61 remove_diacritics 0')`,
      // A purge must leave no trace of the text in the index's segments either.
      "INSERT INTO search_fts (search_fts, rank) VALUES ('secure-delete', 1)",
      // Sessions stored before this step, indexed when the store opens (sqlite-search.ts).
      "CREATE TABLE search_backlog (session_pk INTEGER PRIMARY KEY)",
      "INSERT INTO search_backlog (session_pk) SELECT pk FROM sessions",
    ],
  },
];

/** The store's tables as a migration set (`runSqliteMigrations`), recorded in `sessiontree_migrations`. */
export const SQLITE_SCHEMA: MigrationSet = {
  name: "sessiontree store",
  table: "sessiontree_migrations",
  migrations: SQLITE_MIGRATIONS,
};
