import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { SessionStore } from "../../src/store/store.js";

const run = promisify(execFile);
const WORKER = fileURLToPath(new URL("./store-worker.ts", import.meta.url));

interface WorkerReport {
  name: string;
  acks: Array<{ id: string; revision: number; expected: number }>;
  conflicts: Array<{ expected: number; current: number | undefined }>;
}

/**
 * Two child processes, each with its own store on `location`, append `perWorker` entries to one
 * session, each naming the leaf and revision it read ("expected"), or asking the store to hang each
 * entry under its leaf ("under-leaf"). Checks, through `store`: every acknowledged append is
 * there, each got its own revision, every conflict named a newer revision (under the leaf: there
 * is none), and the session is one unbroken chain (no lost update, no fork). `gapMs`: a random
 * pause of up to that long between each worker's read and its write.
 */
export async function twoWriters(
  kind: "postgres" | "sqlite",
  location: string,
  store: SessionStore,
  perWorker: number,
  gapMs = 0,
  mode: "expected" | "under-leaf" = "expected",
) {
  const owner = `two-writers-${Date.now()}`;
  const { id } = await store.createSession(owner);
  const startAt = String(Date.now() + 2500);
  const args = (name: string) => [
    "--import",
    "tsx",
    WORKER,
    kind,
    location,
    owner,
    id,
    name,
    String(perWorker),
    startAt,
    String(gapMs),
    mode,
  ];
  const outputs = await Promise.all(["a", "b"].map((name) => run(process.execPath, args(name))));
  const reports = outputs.map(({ stdout }) => JSON.parse(stdout.trim()) as WorkerReport);

  const acks = reports.flatMap((r) => r.acks);
  assert.equal(acks.length, 2 * perWorker);
  for (const ack of acks) assert.equal(ack.revision, ack.expected + 1);
  assert.equal(
    new Set(acks.map((a) => a.revision)).size,
    acks.length,
    "each acknowledged write has its own revision",
  );
  for (const report of reports) {
    const revisions = report.acks.map((a) => a.revision);
    assert.deepEqual(
      revisions,
      [...revisions].sort((x, y) => x - y),
      `${report.name}: revisions increase`,
    );
    for (const conflict of report.conflicts) {
      assert.ok(
        conflict.current !== undefined && conflict.current > conflict.expected,
        "conflict names a newer revision",
      );
    }
  }
  const conflicts = reports.reduce((sum, r) => sum + r.conflicts.length, 0);
  if (mode === "expected") {
    assert.ok(conflicts > 0, "the two writers never collided: the test did not test concurrency");
  } else {
    assert.equal(conflicts, 0, "appends under the leaf never conflict");
  }

  const session = await store.loadSession(owner, id);
  if (mode === "under-leaf") {
    // Writer a's and b's entries alternate somewhere in the middle: the two really wrote at once.
    const writers = session.entries.map((e) => e.id.split("-")[0]);
    const switches = writers.filter((w, i) => i > 0 && w !== writers[i - 1]).length;
    assert.ok(switches > 1, "the two writers never overlapped: the test did not test concurrency");
  }
  assert.equal(session.summary.revision, 1 + acks.length);
  assert.deepEqual(new Set(session.entries.map((e) => e.id)), new Set(acks.map((a) => a.id)));
  // Every append named the leaf it saw: with no lost update the session is one unbroken chain.
  assert.equal((await store.readBranch(owner, id)).length, acks.length);
  const seen = new Set<string>();
  for (const entry of session.entries) {
    assert.ok(
      entry.parentId === null ? seen.size === 0 : seen.has(entry.parentId),
      `parent of ${entry.id} precedes it`,
    );
    seen.add(entry.id);
  }
  return { acks: acks.length, conflicts };
}
