// A child process of the two-writer tests (two-writers.ts): its own store instance appending to
// one session, either with expected revisions, retrying on conflict ("expected"), or hanging each
// entry under the leaf inside the write ("under-leaf": no revision, no retry, a conflict is a
// failure). Prints one JSON line with what it saw.
//   node --import tsx store-worker.ts <postgres|sqlite> <url|path> owner sessionId name count startAt gapMs [mode]
import { isSessionTreeError } from "../../src/core/errors.js";
import { PostgresStore } from "../../src/store/postgres/index.js";
import { SqliteStore } from "../../src/store/sqlite/index.js";

const [kind, location, owner, sessionId, name, countText, startAtText, gapText, mode = "expected"] =
  process.argv.slice(2);
if (!location || !owner || !sessionId || !name)
  throw new Error("usage: kind location owner sessionId name count startAt");
const count = Number(countText);
const store =
  kind === "postgres"
    ? new PostgresStore({ connectionString: location, maxConnections: 2 })
    : new SqliteStore({ path: location });
await store.init();

/** A random pause of up to gapMs, so that the two writers' appends interleave (SQLite's are quick). */
async function pause(): Promise<void> {
  if (Number(gapText) > 0)
    await new Promise((resolve) => setTimeout(resolve, Math.random() * Number(gapText)));
}

function probe(id: string, parentId: string | null) {
  return { type: "custom", customType: "probe", id, parentId, timestamp: new Date().toISOString() } as never;
}

const acks: Array<{ id: string; revision: number; expected: number }> = [];
const conflicts: Array<{ expected: number; current: number | undefined }> = [];
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAtText) - Date.now())));
for (let i = 0; i < count && mode === "under-leaf"; i++) {
  const id = `${name}-${i}`;
  await pause();
  // The parent this writer last saw would be stale by now: the store hangs the entry under its leaf.
  const result = await store.appendEntries(owner, sessionId, [probe(id, null)], { underLeaf: true });
  acks.push({ id, revision: result.revision, expected: result.revision - 1 });
}
for (let i = 0; i < count && mode === "expected"; i++) {
  const id = `${name}-${i}`;
  for (;;) {
    const { revision, leafId } = await store.getSummary(owner, sessionId);
    // A pause between read and write widens the race window (SQLite's writes are too quick to collide often).
    await pause();
    try {
      const result = await store.appendEntries(owner, sessionId, [probe(id, leafId)], {
        expectedRevision: revision,
      });
      acks.push({ id, revision: result.revision, expected: revision });
      break;
    } catch (error) {
      if (!isSessionTreeError(error, "conflict")) throw error;
      conflicts.push({
        expected: revision,
        current: (error as { currentRevision?: number }).currentRevision,
      });
    }
  }
}
await store.close();
process.stdout.write(`${JSON.stringify({ name, acks, conflicts })}\n`);
