import assert from "node:assert/strict";
import { closeSync, openSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import type { SearchHit } from "../../src/core/search-hit.js";
import { searchLocal, searchLocalDetailed } from "../../src/session/search/index.js";
import { indexPathFor, SCHEMA_VERSION } from "../../src/session/search/index-db.js";
import { searchWorkspace, writeSession } from "./search-support.js";

const ws = searchWorkspace();
after(() => ws.cleanup());

const ids = (hits: SearchHit[]) => hits.map((h) => h.entryId).sort();
const find = (query: string) => searchLocal({ root: ws.root, query });

describe("local search: words the index keeps in other columns", () => {
  // File ids 1 and 2: their scope tokens are `f1` and `f2`, in a column no word query may reach.
  writeSession(ws.root, "/home/dev/a", "sess-a", [
    { id: "a1", text: "press the f1 key" },
    { id: "a2", text: "nothing of the kind" },
  ]);
  writeSession(ws.root, "/home/dev/b", "sess-b", [
    { id: "b1", text: "fix the flaky test" },
    { id: "b2", text: "call parseArgs then parse" },
  ]);

  it("finds a word like a file's scope token in the text only", () => {
    assert.deepEqual(ids(find("f1")), ["a1"]);
    assert.deepEqual(ids(find("f2")), []);
    assert.deepEqual(ids(find("f*")), ["a1", "b1"]);
    assert.deepEqual(ids(find("f2*")), []);
  });

  it("finds common words, camelCase parts and words together in every session", () => {
    assert.deepEqual(ids(find("the")), ["a1", "a2", "b1"]);
    assert.deepEqual(ids(find("args")), ["b2"]);
    assert.deepEqual(ids(find("the test")), ["b1"]);
  });

  it("finds a prefix of every length, with or without a prefix index for it", () => {
    for (const [prefix, expected] of [
      ["p*", ["a1", "b2"]],
      ["pa*", ["b2"]],
      ["par*", ["b2"]],
      ["pars*", ["b2"]],
      ["parse*", ["b2"]],
      ["parsea*", ["b2"]],
      ["parseargs*", ["b2"]],
      ["arg*", ["b2"]],
      ["pre*", ["a1"]],
      ["zzz*", []],
    ] as const)
      assert.deepEqual(ids(find(prefix)), expected, prefix);
  });
});

/** The tables of an index of version 1, as it made them. */
const V1_SCHEMA = `
CREATE TABLE files (
  id INTEGER PRIMARY KEY AUTOINCREMENT, path TEXT NOT NULL UNIQUE, stamp TEXT NOT NULL,
  lines INTEGER NOT NULL, version INTEGER NOT NULL, session_id TEXT, cwd TEXT, name TEXT,
  count INTEGER NOT NULL, leaf INTEGER NOT NULL, ids TEXT NOT NULL, parent_ids TEXT NOT NULL,
  parents BLOB NOT NULL
);
CREATE TABLE entries (
  rowid INTEGER PRIMARY KEY, entry_id TEXT NOT NULL, kind INTEGER NOT NULL, ts TEXT NOT NULL,
  line INTEGER NOT NULL, offset INTEGER NOT NULL
);
CREATE INDEX files_head ON files (path, id, stamp, version, session_id, cwd);
CREATE VIRTUAL TABLE fts USING fts5(
  body, parts, scope, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
);
`;

describe("local search: an index of another schema version", () => {
  it("is deleted and built again", () => {
    const root = join(ws.dir, "old-root");
    writeSession(root, "/home/dev/old", "sess-old", [{ id: "o1", text: "kept words" }]);
    assert.deepEqual(ids(searchLocal({ root, query: "kept" })), ["o1"]);
    const path = indexPathFor(root) as string;
    // Replace the index by an empty one of version 1 (no `stat` column, no prefix indexes).
    for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
    closeSync(openSync(path, "w", 0o600));
    const old = new Database(path);
    old.exec(V1_SCHEMA);
    old.pragma("user_version = 1");
    old.close();
    const result = searchLocalDetailed({ root, query: "kept" });
    assert.deepEqual(ids(result.hits), ["o1"]);
    assert.equal(result.refreshed.read, 1);
    const db = new Database(path, { readonly: true });
    assert.equal(db.pragma("user_version", { simple: true }), SCHEMA_VERSION);
    assert.ok(db.prepare("SELECT stat FROM files").all().length === 1);
    db.close();
  });
});
