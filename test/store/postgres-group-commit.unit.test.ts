import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import type { SessionEntry } from "../../src/core/entry.js";
import { isSessionTreeError } from "../../src/core/errors.js";
import type { PgClient, PgPool } from "../../src/store/postgres/connection.js";
import { PostgresStore } from "../../src/store/postgres/index.js";
import { freshDatabase } from "./pg-database.js";

const database = await freshDatabase("group_commit");
after(() => database.drop());

/** A pool that counts the transactions its clients begin. */
function countingPool(url: string): { pool: PgPool; begins: () => number; end: () => Promise<void> } {
  const real = new pg.Pool({ connectionString: url, max: 10 });
  let begins = 0;
  const pool: PgPool = {
    query: (text, values) => real.query(text, values),
    end: () => real.end(),
    async connect(): Promise<PgClient> {
      const client = await real.connect();
      return {
        query: (text, values) => {
          if (text === "BEGIN") begins++;
          return client.query(text, values);
        },
        release: (destroy) => client.release(destroy),
      };
    },
  };
  return { pool, begins: () => begins, end: () => real.end() };
}

function message(id: string, parentId: string | null, text: string): SessionEntry {
  const timestamp = new Date().toISOString();
  return {
    type: "message",
    id,
    parentId,
    timestamp,
    message: { role: "user", content: text, timestamp: Date.now() },
  } as SessionEntry;
}

describe("PostgreSQL group commit", () => {
  let counted: ReturnType<typeof countingPool>;
  let store: PostgresStore;

  before(async () => {
    counted = countingPool(database.url);
    store = new PostgresStore({ pool: counted.pool });
    await store.init();
  });
  after(async () => {
    await store.close();
    await counted.end();
  });

  it("stores concurrent appends to different sessions in fewer transactions, each as asked", async () => {
    const sessions = await Promise.all(
      Array.from({ length: 30 }, () => store.createSession("alice", { cwd: "/g" })),
    );
    const before = counted.begins();
    const results = await Promise.all(
      sessions.map((s, i) =>
        store.appendEntries("alice", s.id, [message(`a${i}`, null, `word${i} hello`)], { underLeaf: true }),
      ),
    );
    const transactions = counted.begins() - before;
    assert.ok(transactions < sessions.length, `${transactions} transactions for ${sessions.length} appends`);
    for (const [i, s] of sessions.entries()) {
      assert.deepEqual(results[i]?.appended, [`a${i}`]);
      assert.equal(results[i]?.revision, s.revision + 1);
      const stored = await store.readEntries("alice", s.id);
      assert.deepEqual(
        stored.entries.map((e) => e.id),
        [`a${i}`],
      );
      const hits = await store.search("alice", `word${i}`, { sessionId: s.id });
      assert.equal(hits.length, 1, "the entry is indexed in the same transaction");
    }
  });

  it("fails only the write that failed: a stale revision, and a write whose own work throws after writing", async () => {
    const sessions = await Promise.all(
      Array.from({ length: 12 }, () => store.createSession("bob", { cwd: "/g" })),
    );
    const outcomes = await Promise.allSettled(
      sessions.map((s, i) => {
        const options: Parameters<PostgresStore["appendEntries"]>[3] = { underLeaf: true };
        if (i === 3) options.expectedRevision = s.revision + 5;
        if (i === 7) {
          options.within = async (_outcome, sql) => {
            await sql?.run("SELECT 1", []);
            throw new Error("the caller's work failed");
          };
        }
        return store.appendEntries("bob", s.id, [message(`b${i}`, null, "x")], options);
      }),
    );
    for (const [i, outcome] of outcomes.entries()) {
      const stored = await store.readEntries("bob", sessions[i]?.id as string);
      if (i === 3) {
        assert.equal(outcome.status, "rejected");
        assert.ok(isSessionTreeError((outcome as PromiseRejectedResult).reason, "conflict"));
        assert.equal(stored.entries.length, 0);
      } else if (i === 7) {
        assert.equal(outcome.status, "rejected");
        assert.match(String((outcome as PromiseRejectedResult).reason), /the caller's work failed/);
        assert.equal(stored.entries.length, 0, "nothing of the failed write stays");
      } else {
        assert.equal(outcome.status, "fulfilled", `write ${i}`);
        assert.deepEqual(
          stored.entries.map((e) => e.id),
          [`b${i}`],
        );
      }
    }
  });

  it("chains concurrent appends to one session under the leaf, one write at a time", async () => {
    const session = await store.createSession("carol", { cwd: "/g" });
    const other = await store.createSession("carol", { cwd: "/g" });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => [
        store.appendEntries("carol", session.id, [message(`c${i}`, null, "x")], { underLeaf: true }),
        store.appendEntries("carol", other.id, [message(`d${i}`, null, "x")], { underLeaf: true }),
      ]).flat(),
    );
    for (const id of [session.id, other.id]) {
      const { entries } = await store.readEntries("carol", id);
      assert.equal(entries.length, 20);
      entries.forEach((entry, i) => {
        assert.equal(entry.parentId, i === 0 ? null : entries[i - 1]?.id, "one chain, no fork");
      });
      assert.equal((await store.getSummary("carol", id)).revision, session.revision + 20);
    }
  });
});
