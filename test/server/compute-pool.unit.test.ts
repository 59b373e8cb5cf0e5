// Whole-session answers built on worker threads (issue 16.1): the same bytes as built in-process, a
// worker that dies fails its jobs (never a hang) and is replaced; a page of entries read in runs
// is the page a single read gives.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import type { ServerServices } from "../../src/server/services.js";
import { openJob } from "../../src/server/work/compute-jobs.js";
import { ComputePool } from "../../src/server/work/compute-pool.js";
import type { ComputeTask, SessionHead } from "../../src/server/work/compute-protocol.js";
import { entryPageAnswer } from "../../src/server/work/entry-pages.js";
import { MemoryStore } from "../../src/store/index.js";
import { bigSessionJsonl } from "./tenant-load.js";

const entries = bigSessionJsonl(1200, 120)
  .trim()
  .split("\n")
  .slice(1)
  .map((line) => JSON.parse(line));
const head: SessionHead = { sessionId: "s", cwd: "/w", leafId: "e600", imported: false };

async function inProcess(task: ComputeTask): Promise<unknown> {
  const job = openJob(task);
  job.add(entries);
  job.endSession(head);
  return job.finish();
}

describe("compute workers", () => {
  it("answer every task with what the same job gives in-process", async () => {
    const pool = new ComputePool(2);
    try {
      const tasks: ComputeTask[] = [
        { kind: "tree", maxBytes: 1e9 },
        { kind: "labels", maxBytes: 1e9 },
        { kind: "branch", leafId: "e900", sessionId: "s", maxBytes: 1e9 },
        { kind: "context", leafId: undefined, sessionId: "s", maxBytes: 1e9 },
        { kind: "stats", since: undefined, idleGapMs: 600_000 },
      ];
      await Promise.all(
        tasks.map(async (task) => {
          const job = pool.open(task);
          for (let at = 0; at < entries.length; at += 200) job.add(entries.slice(at, at + 200));
          job.endSession(head);
          assert.deepEqual(await job.finish(), await inProcess(task), task.kind);
        }),
      );
    } finally {
      await pool.close();
    }
  });

  it("carries typed errors back: an unknown leaf is entry_not_found, a large answer 413", async () => {
    const pool = new ComputePool(1);
    try {
      const unknown = pool.open({ kind: "branch", leafId: "nope", sessionId: "s", maxBytes: 1e9 });
      unknown.add(entries);
      unknown.endSession(head);
      await assert.rejects(unknown.finish(), { name: "NotFoundError", code: "entry_not_found" });
      const large = pool.open({ kind: "tree", maxBytes: 1000 });
      large.add(entries);
      large.endSession(head);
      await assert.rejects(large.finish(), { name: "HttpError", status: 413, code: "payload_too_large" });
    } finally {
      await pool.close();
    }
  });

  it("fails the jobs of a worker that dies, and starts another for the next job", async () => {
    const pool = new ComputePool(1);
    try {
      const job = pool.open({ kind: "labels", maxBytes: 1e9 });
      const answer = job.finish();
      await pool.close(); // the worker ends with the job in it
      await assert.rejects(answer, /compute worker exited/);
      const next = pool.open({ kind: "labels", maxBytes: 1e9 });
      next.add(entries);
      next.endSession(head);
      assert.deepEqual(await next.finish(), await inProcess({ kind: "labels", maxBytes: 1e9 }));
    } finally {
      await pool.close();
    }
  });
});

/** The nice value of each of this process's threads (Linux /proc: field 19 of a task's stat). */
function threadNices(): number[] {
  return readdirSync("/proc/self/task").map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
  });
}

function ownNice(): number {
  const stat = readFileSync("/proc/thread-self/stat", "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}

describe("compute workers' priority", () => {
  it("run below the request thread: a large read's arithmetic yields the core to small requests", async () => {
    const mainNice = ownNice();
    // A process already at nice 10 or lower priority keeps its priority in every thread.
    const lowered = (nice: number) => (mainNice < 10 ? nice === 10 : nice >= mainNice);
    const before = threadNices().filter(lowered).length;
    const pool = new ComputePool(1);
    try {
      const job = pool.open({ kind: "labels", maxBytes: 1e9 });
      job.add(entries);
      job.endSession(head);
      await job.finish();
      const after = threadNices().filter(lowered).length;
      assert.ok(after >= before + 1, `a worker at nice 10 or below the process (${before} → ${after})`);
      assert.ok(
        threadNices().every((nice) => nice >= mainNice),
        "no thread raised above the process",
      );
      assert.equal(ownNice(), mainNice, "the request thread keeps its priority");
    } finally {
      await pool.close();
    }
  });
});

describe("a page of entries read in runs", () => {
  it("is the page one read gives, wherever it starts and however long it is", async () => {
    const store = new MemoryStore();
    const summary = await store.importJsonl("u", bigSessionJsonl(1000, 100));
    const services = { store } as unknown as ServerServices;
    for (const query of [
      {},
      { limit: 5000 },
      { after: 150, limit: 401 },
      { after: 999 },
      { after: 1000 },
      { after: 5000 },
    ]) {
      const reply = await entryPageAnswer(services, "u", summary.id, query);
      const expected = JSON.stringify(await store.readEntries("u", summary.id, query));
      const body = reply.body instanceof ReadableStream ? await new Response(reply.body).text() : reply.body;
      assert.equal(body, expected, JSON.stringify(query));
    }
  });
});
