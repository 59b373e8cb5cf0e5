// Whole-session reads in slices (issue 16.1): the same answers as before, a bound on their size,
// a cap per user and a cap per instance.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SessionEntry } from "../../src/core/entry.js";
import { HttpError } from "../../src/server/http/http-error.js";
import { flattenTree, treeOf } from "../../src/server/routes/tree-view.js";
import type { ServerServices } from "../../src/server/services.js";
import { flattenTreeSliced } from "../../src/server/work/flat-tree.js";
import { JsonChunks } from "../../src/server/work/json-chunks.js";
import { gatedRead } from "../../src/server/work/read-gate.js";
import { TimeSlicer } from "../../src/server/work/time-slicer.js";
import { Random } from "../support/random.js";
import { startTestServer, userMessage } from "./helpers.js";

/** A branched session: random parents among earlier entries, repeated timestamps, labels. */
function branchedEntries(count: number, seed: number): SessionEntry[] {
  const random = new Random(seed);
  const entries: SessionEntry[] = [];
  for (let i = 0; i < count; i++) {
    const parentId = i === 0 || random.int(10) === 0 ? null : `e${random.between(Math.max(0, i - 5), i - 1)}`;
    const timestamp = new Date(Date.UTC(2026, 0, 1, 0, 0, random.between(0, count))).toISOString();
    const entry =
      i > 3 && random.int(7) === 0
        ? {
            type: "label",
            id: `e${i}`,
            parentId,
            timestamp,
            targetId: `e${random.int(i)}`,
            label: `l${i}`,
          }
        : {
            type: "message",
            id: `e${i}`,
            parentId,
            timestamp,
            message: { role: "user", content: `m${i}`, timestamp: i },
          };
    entries.push(entry as SessionEntry);
  }
  return entries;
}

describe("whole-session reads in slices", () => {
  it("flattens a tree exactly as flattenTree does (order, roots, children, labels)", async () => {
    for (const seed of [1, 2, 3]) {
      const tree = treeOf(branchedEntries(2000, seed));
      // A slice of 0 ms pauses at every step: the interleaving cannot change the answer.
      assert.deepEqual(await flattenTreeSliced(tree, new TimeSlicer(0)), flattenTree(tree));
    }
  });

  it("refuses an answer past the size bound with 413, before a byte is sent", async () => {
    const out = new JsonChunks(new TimeSlicer(), 100);
    await out.raw("[");
    await assert.rejects(out.array(Array.from({ length: 50 }, (_, i) => ({ i }))), (error: unknown) => {
      assert.ok(error instanceof HttpError);
      assert.deepEqual([error.status, error.code], [413, "payload_too_large"]);
      assert.match(error.message, /GET \/v1\/sessions\/\{id\}\/entries/);
      return true;
    });
  });

  it("answers 413 for a tree larger than maxResponseBytes, while the entry pages still read it", async () => {
    const t = await startTestServer("sqlite", { limits: { maxResponseBytes: 4096 } });
    try {
      const key = await t.key("big");
      const id = (await t.call("POST", "/v1/sessions", { key, body: {} })).json.id;
      const entries = Array.from({ length: 100 }, (_, i) => userMessage(`entry ${i}`));
      assert.equal(
        (await t.call("POST", `/v1/sessions/${id}/entries`, { key, body: { entries } })).status,
        200,
      );
      for (const view of ["tree", "context", "branch"]) {
        const r = await t.call("GET", `/v1/sessions/${id}/${view}`, { key });
        assert.deepEqual([r.status, r.json.code], [413, "payload_too_large"], view);
      }
      const page = await t.call("GET", `/v1/sessions/${id}/entries?limit=100`, { key });
      assert.equal(page.json.entries.length, 100);
    } finally {
      await t.close();
    }
  });

  it("caps whole-session reads per user (429 + Retry-After) and queues past the instance's cap", async () => {
    const services = { limits: { maxHeavyReadsPerUser: 1, maxHeavyReads: 2 } } as unknown as ServerServices;
    const order: string[] = [];
    const gates: Array<() => void> = [];
    const read = (name: string) => () =>
      new Promise<string>((resolve) => {
        order.push(`start ${name}`);
        gates.push(() => resolve(name));
      });
    const a1 = gatedRead(services, "a", read("a1"));
    await assert.rejects(gatedRead(services, "a", read("a2")), (error: unknown) => {
      assert.ok(error instanceof HttpError);
      assert.deepEqual([error.status, error.code, error.headers["Retry-After"]], [429, "rate_limited", "1"]);
      return true;
    });
    const b = gatedRead(services, "b", read("b"));
    const c = gatedRead(services, "c", read("c"));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ["start a1", "start b"], "c waits: two reads already run");
    gates.shift()?.();
    assert.equal(await a1, "a1");
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ["start a1", "start b", "start c"], "a1's slot went to c");
    const a3 = gatedRead(services, "a", read("a3"));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(order.length, 3, "a's next read waits for a slot, it is not refused");
    for (const open of gates.splice(0)) open();
    await Promise.all([b, c]);
    gates.shift()?.();
    assert.equal(await a3, "a3");
  });
});
