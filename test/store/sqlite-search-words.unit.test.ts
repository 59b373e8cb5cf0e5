import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { SqliteStore } from "../../src/store/sqlite/index.js";
import { PendingWords } from "../../src/store/sqlite/pending-words.js";
import type { SqliteDatabase } from "../../src/store/sqlite/sqlite-config.js";
import type { Statements } from "../../src/store/sqlite/statements.js";
import { make } from "./conformance/helpers.js";

// The SQLite store writes a transaction's FTS5 rows at its end, in ascending rowid order
// (src/store/sqlite/pending-words.ts): the writes sharing a transaction must still each be
// findable, a write undone must leave no words behind, and a purge must leave no words either.

/** PendingWords over a connection that only records the FTS5 inserts it is asked to run. */
function recorded(): { words: PendingWords; inserted: number[] } {
  const inserted: number[] = [];
  const insert = { run: (doc: unknown) => inserted.push(doc as number), get: () => undefined, all: () => [] };
  const q = { statement: () => insert } as unknown as Statements;
  return { words: new PendingWords(q), inserted };
}

describe("PendingWords", () => {
  it("writes the held rows in ascending rowid order, once", () => {
    const { words, inserted } = recorded();
    for (const doc of [-3, -4, -1, -7]) words.add(doc, `w${doc}`);
    words.flush();
    words.flush();
    assert.deepEqual(inserted, [-7, -4, -3, -1]);
  });

  it("forgets the rows of a write that was undone", () => {
    const { words, inserted } = recorded();
    words.add(-1, "kept");
    const undo = words.mark();
    words.add(-2, "undone");
    undo();
    words.flush();
    assert.deepEqual(inserted, [-1]);
  });

  it("writes again rows whose writing the undone savepoint took back (a purge flushed them)", () => {
    const { words, inserted } = recorded();
    words.add(-1, "earlier write");
    const undo = words.mark();
    words.flush(); // a purge inside the next write flushes before it deletes
    undo(); // ... and that write fails: its savepoint's rollback removes the row from FTS5
    words.flush();
    assert.deepEqual(inserted, [-1, -1]);
  });
});

const dir = mkdtempSync(join(tmpdir(), "sessiontree-search-words-"));
after(() => rmSync(dir, { recursive: true, force: true }));

async function open(name: string): Promise<{ store: SqliteStore; db: Database.Database }> {
  const db = new Database(join(dir, name));
  const store = new SqliteStore({ database: db as unknown as SqliteDatabase });
  await store.init();
  return { store, db };
}

/** FTS5 rowids matching `word`, orphans included (search() joins them to rows and would hide them). */
function ftsDocs(db: Database.Database, word: string): number[] {
  const rows = db.prepare("SELECT rowid AS doc FROM search_fts WHERE search_fts MATCH ?").all(word);
  return rows.map((row) => (row as { doc: number }).doc);
}

describe("SQLite store: search words of writes sharing a transaction", () => {
  it("finds every write of a group, and nothing of a write that failed inside it", async () => {
    const { store, db } = await open("group.db");
    const owner = "owner-group";
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await store.createSession(owner)).id);
    // Issued in one turn: one shared transaction. Write 3 fails after storing its entry.
    const writes = ids.map((id, i) =>
      store.appendEntries(owner, id, [make.user(`e${i}`, null, `groupword${i} sharedword`)], {
        within:
          i === 3
            ? () => {
                throw new Error("refused inside the write");
              }
            : undefined,
      }),
    );
    const outcomes = await Promise.allSettled(writes);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ids.map((_, i) => (i === 3 ? "rejected" : "fulfilled")),
    );
    for (let i = 0; i < ids.length; i++) {
      const hits = await store.search(owner, `groupword${i}`);
      assert.equal(hits.length, i === 3 ? 0 : 1, `groupword${i}`);
    }
    assert.equal((await store.search(owner, "sharedword", { limit: 50 })).length, 7);
    assert.deepEqual(ftsDocs(db, "groupword3"), [], "the failed write left words in FTS5");
    assert.equal(ftsDocs(db, "sharedword").length, 7);
    await store.close();
    db.close();
  });

  it("a purge in the same transaction as an append to the session leaves no words", async () => {
    const { store, db } = await open("purge.db");
    const owner = "owner-purge";
    const gone = (await store.createSession(owner)).id;
    const kept = (await store.createSession(owner)).id;
    await store.appendEntries(owner, gone, [make.user("old", null, "purgedword before")]);
    await Promise.all([
      store.appendEntries(owner, kept, [make.user("k", null, "keptword")]),
      store.appendEntries(owner, gone, [make.user("new", "old", "purgedword during")]),
      store.purgeSession(owner, gone),
    ]);
    assert.deepEqual(ftsDocs(db, "purgedword"), []);
    assert.equal(ftsDocs(db, "keptword").length, 1);
    assert.equal((await store.search(owner, "keptword")).length, 1);
    await store.close();
    db.close();
  });
});
