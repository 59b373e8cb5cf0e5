import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import type { SessionEntry } from "../../src/core/entry.js";
import { isSessionTreeError } from "../../src/core/errors.js";
import { SqliteStore } from "../../src/store/sqlite/index.js";
import type { AppendOptions } from "../../src/store/store.js";

// SQLite's group commit (src/store/sqlite/group-commit.ts): the writes queued in one turn run in one
// transaction without savepoints, and when one fails, the batch runs again with each write in its
// own savepoint. Search rows take docs below every doc of the transaction (pending-words.ts
// `takeDocs`): a doc taken twice would drop a search row (ON CONFLICT DO NOTHING) without a word.

function message(id: string, parentId: string | null, text: string): SessionEntry {
  return {
    type: "message",
    id,
    parentId,
    timestamp: new Date().toISOString(),
    message: { role: "user", content: text, timestamp: Date.now() },
  } as SessionEntry;
}

describe("SQLite group commit", () => {
  let dir: string;
  let store: SqliteStore;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "st-group-commit-"));
    store = new SqliteStore({ path: join(dir, "store.db") });
    await store.init();
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("fails only the write that failed, in a batch that shares a transaction, and indexes the others once", async () => {
    const sessions = [];
    for (let i = 0; i < 12; i++) sessions.push(await store.createSession("alice", { cwd: "/g" }));
    const withinRuns = new Map<number, number>();
    // All queued in this turn: one batch.
    const outcomes = await Promise.allSettled(
      sessions.map((s, i) => {
        const options: AppendOptions = { underLeaf: true };
        if (i === 3) options.expectedRevision = s.revision + 5;
        options.within = (_outcome, sql) => {
          withinRuns.set(i, (withinRuns.get(i) ?? 0) + 1);
          if (i !== 7) return;
          // Writes inside the transaction, then fails: all of it must go, and nothing of the others.
          sql?.run("UPDATE sessions SET name = $1 WHERE owner = $2 AND id = $3", [
            "scribbled",
            "alice",
            s.id,
          ]);
          throw new Error("the caller's work failed");
        };
        return store.appendEntries("alice", s.id, [message(`a${i}`, null, `alpha${i} shared`)], options);
      }),
    );
    for (const [i, outcome] of outcomes.entries()) {
      const id = sessions[i]?.id as string;
      const stored = await store.readEntries("alice", id);
      const summary = await store.getSummary("alice", id);
      const hits = await store.search("alice", `alpha${i}`);
      if (i === 3 || i === 7) {
        assert.equal(outcome.status, "rejected", `write ${i}`);
        const reason = (outcome as PromiseRejectedResult).reason;
        if (i === 3) assert.ok(isSessionTreeError(reason, "conflict"));
        else assert.match(String(reason), /the caller's work failed/);
        assert.equal(stored.entries.length, 0, "nothing of the failed write stays");
        assert.equal(summary.revision, sessions[i]?.revision);
        assert.notEqual(summary.name, "scribbled");
        assert.equal(hits.length, 0, "the failed write's words are not indexed");
      } else {
        assert.equal(outcome.status, "fulfilled", `write ${i}`);
        assert.deepEqual(
          stored.entries.map((e) => e.id),
          [`a${i}`],
        );
        assert.equal(summary.revision, (sessions[i]?.revision ?? 0) + 1);
        assert.deepEqual(
          hits.map((hit) => hit.entryId),
          [`a${i}`],
          "indexed once",
        );
      }
      assert.ok((withinRuns.get(i) ?? 0) >= (i === 3 ? 0 : 1));
    }
    const shared = await store.search("alice", "shared", { limit: 50 });
    assert.deepEqual(
      shared.map((hit) => hit.entryId).sort(),
      sessions
        .map((_, i) => `a${i}`)
        .filter((id) => id !== "a3" && id !== "a7")
        .sort(),
    );
  });

  it("numbers every transaction's search rows below the ones before, failures or not", async () => {
    const sessions = [];
    for (let i = 0; i < 6; i++) sessions.push(await store.createSession("bob", { cwd: "/g" }));
    const expected: string[] = [];
    for (let round = 0; round < 5; round++) {
      const outcomes = await Promise.allSettled(
        sessions.map((s, i) => {
          const id = `r${round}s${i}`;
          const entries = [
            message(id, null, `bravo round${round} first`),
            message(`${id}b`, id, "bravo second"),
          ];
          const options: AppendOptions = { underLeaf: true };
          // A failure in the middle of every other batch: the batch is run again, with savepoints.
          if (round % 2 === 0 && i === 2)
            options.within = () => {
              throw new Error("no");
            };
          return store.appendEntries("bob", s.id, entries, options);
        }),
      );
      outcomes.forEach((outcome, i) => {
        const failed = round % 2 === 0 && i === 2;
        assert.equal(outcome.status, failed ? "rejected" : "fulfilled");
        if (!failed) expected.push(`r${round}s${i}`, `r${round}s${i}b`);
      });
      // A failing write alone in its transaction.
      await assert.rejects(
        store.appendEntries("bob", sessions[0]?.id as string, [message(`lone${round}`, null, "bravo lone")], {
          underLeaf: true,
          within: () => {
            throw new Error("alone");
          },
        }),
        /alone/,
      );
    }
    const hits = await store.search("bob", "bravo", { limit: 200 });
    assert.deepEqual(hits.map((hit) => hit.entryId).sort(), [...expected].sort(), "every row once");
    // No FTS5 row without its search row (a rolled-back attempt's words written anyway).
    const db = new Database(join(dir, "store.db"), { readonly: true });
    try {
      const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
      assert.equal(
        count("SELECT count(*) AS n FROM search_fts_docsize"),
        count("SELECT count(*) AS n FROM search_rows"),
      );
    } finally {
      db.close();
    }
    const newest = await store.search("bob", "round4", { limit: 200 });
    assert.equal(newest.length, 5, "round 4 had a failure");
  });

  it("looks up few ids and many ids alike: a retried batch is skipped whole", async () => {
    const session = await store.createSession("carol", { cwd: "/g" });
    const batch = Array.from({ length: 12 }, (_, i) =>
      message(`c${i}`, i === 0 ? null : `c${i - 1}`, `c${i}`),
    );
    const first = await store.appendEntries("carol", session.id, batch);
    assert.equal(first.appended.length, 12);
    const retry = await store.appendEntries("carol", session.id, batch);
    assert.deepEqual(retry.appended, []);
    assert.deepEqual(
      retry.skipped,
      batch.map((e) => e.id),
    );
    assert.equal(retry.revision, first.revision, "a retry changes nothing");
    const d0 = message("d0", null, "d");
    const small = await store.appendEntries("carol", session.id, [d0], { underLeaf: true });
    assert.deepEqual(small.appended, ["d0"]);
    const again = await store.appendEntries("carol", session.id, [{ ...d0, parentId: "c11" }]);
    assert.deepEqual(again.skipped, ["d0"]);
    await assert.rejects(
      store.appendEntries("carol", session.id, [
        { ...d0, parentId: "c11", timestamp: "2020-01-01T00:00:00.000Z" },
      ]),
      (error) => isSessionTreeError(error, "duplicate_entry"),
    );
    const { entries } = await store.readEntries("carol", session.id);
    assert.equal(entries.length, 13);
    assert.equal(entries[12]?.parentId, "c11", "hung under the leaf");
  });

  it("reads the lowest doc again in each transaction: another connection may have taken lower ones", async () => {
    const other = new SqliteStore({ path: join(dir, "store.db") });
    await other.init();
    try {
      const mine = await store.createSession("dave", { cwd: "/g" });
      const theirs = await other.createSession("dave", { cwd: "/g" });
      for (let i = 0; i < 4; i++) {
        await store.appendEntries("dave", mine.id, [message(`m${i}`, null, "delta mine")], {
          underLeaf: true,
        });
        await other.appendEntries("dave", theirs.id, [message(`t${i}`, null, "delta theirs")], {
          underLeaf: true,
        });
      }
      const hits = await store.search("dave", "delta", { limit: 50 });
      assert.deepEqual(hits.map((hit) => hit.entryId).sort(), [
        "m0",
        "m1",
        "m2",
        "m3",
        "t0",
        "t1",
        "t2",
        "t3",
      ]);
    } finally {
      await other.close();
    }
  });
});
