import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import type { SessionEntry } from "../../src/core/entry.js";
import { PostgresStore } from "../../src/store/postgres/index.js";
import { freshDatabase } from "./pg-database.js";

// A PostgreSQL batch (postgres-batch-round.ts) holds its writes' entries until the summaries'
// update and sends both, with the search rows, as one statement (postgres-batch-sql.ts
// `writeBatch`). What it stores must be what each write stores alone, run starts included, and the
// write's own work inside the transaction sees its entries.

const database = await freshDatabase("write_batch");
after(() => database.drop());

function message(id: string, parentId: string | null, text: string): SessionEntry {
  return {
    type: "message",
    id,
    parentId,
    timestamp: "2026-01-01T00:00:00.000Z",
    message: { role: "user", content: text, timestamp: 1 },
  } as SessionEntry;
}

/** Three entries: a chain, then a second child of its first entry (a branch), the leaf. */
function batchOf(prefix: string): SessionEntry[] {
  return [
    message(`${prefix}x`, null, `${prefix}word one`),
    message(`${prefix}y`, `${prefix}x`, "two"),
    message(`${prefix}z`, `${prefix}x`, "three"),
  ];
}

describe("PostgreSQL batched writes", () => {
  let store: PostgresStore;
  let client: pg.Client;

  before(async () => {
    store = new PostgresStore({ connectionString: database.url });
    await store.init();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  after(async () => {
    await client.end();
    await store.close();
  });

  async function runStarts(owner: string, sessionId: string): Promise<Array<[number, number | null]>> {
    const { rows } = await client.query(
      `SELECT e.seq, e.run_start FROM entries e JOIN sessions s ON s.pk = e.session_pk
        WHERE s.owner = $1 AND s.id = $2 ORDER BY e.seq`,
      [owner, sessionId],
    );
    return rows.map((row) => [Number(row.seq), row.run_start === null ? null : Number(row.run_start)]);
  }

  it("stores concurrent appends as the same appends one at a time do, and each write's work sees its entries", async () => {
    const count = 16;
    const batched = [];
    const alone = [];
    for (let i = 0; i < count; i++) {
      batched.push(await store.createSession("alice", { cwd: "/b" }));
      alone.push(await store.createSession("alice", { cwd: "/b" }));
    }
    // Two stored entries first, so each batch's first run joins the stored last entry's run.
    const prefill = (i: number) => [message(`p${i}a`, null, "p"), message(`p${i}b`, `p${i}a`, "p")];
    for (const [i, s] of [...batched, ...alone].entries())
      await store.appendEntries("alice", s.id, prefill(i % count));

    const seen: number[] = [];
    const results = await Promise.all(
      batched.map((s, i) =>
        store.appendEntries("alice", s.id, batchOf(`b${i}`), {
          underLeaf: true,
          within: async (_outcome, sql) => {
            const rows = await sql?.all<{ n: number }>(
              "SELECT count(*)::int AS n FROM entries e JOIN sessions s ON s.pk = e.session_pk WHERE s.owner = $1 AND s.id = $2",
              ["alice", s.id],
            );
            seen[i] = rows?.[0]?.n ?? -1;
          },
        }),
      ),
    );
    for (const [i, s] of alone.entries())
      await store.appendEntries("alice", s.id, batchOf(`b${i}`), { underLeaf: true });

    for (let i = 0; i < count; i++) {
      const b = batched[i]?.id as string;
      const a = alone[i]?.id as string;
      assert.equal(seen[i], 5, "the write's own work sees its entries");
      assert.deepEqual(results[i]?.appended, [`b${i}x`, `b${i}y`, `b${i}z`]);
      const [mine, reference] = await Promise.all([
        store.loadSession("alice", b),
        store.loadSession("alice", a),
      ]);
      assert.deepEqual(mine.entries, reference.entries);
      assert.equal(mine.entries[2]?.parentId, `p${i}b`, "hung under the stored leaf");
      const strip = (summary: typeof mine.summary) => ({ ...summary, id: "", createdAt: "", modifiedAt: "" });
      assert.deepEqual(strip(mine.summary), strip(reference.summary));
      assert.deepEqual(await runStarts("alice", b), await runStarts("alice", a), "the same run starts");
      const branch = await store.readBranch("alice", b);
      assert.deepEqual(
        branch.map((e) => e.id),
        [`p${i}a`, `p${i}b`, `b${i}x`, `b${i}z`],
      );
      const hits = await store.search("alice", `b${i}word`, { sessionId: b });
      assert.deepEqual(
        hits.map((hit) => hit.entryId),
        [`b${i}x`],
      );
    }
  });
});
