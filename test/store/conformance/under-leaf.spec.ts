import assert from "node:assert/strict";
import { it } from "node:test";
import type { SessionEntry } from "../../../src/core/entry.js";
import { chain, ids, make, newOwner, rejectsWith, type SpecContext } from "./helpers.js";

/** One chain from the root: every entry's parent is the entry stored before it. */
function assertOneChain(entries: readonly SessionEntry[]): void {
  entries.forEach((entry, i) => {
    assert.equal(entry.parentId, i === 0 ? null : entries[i - 1]?.id, `parent of ${entry.id}`);
  });
}

export function underLeafSpec(ctx: SpecContext): void {
  async function fresh() {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    return { owner, id };
  }

  it("hangs concurrent appends from many clients in one chain: no conflict, no fork", async () => {
    const { owner, id } = await fresh();
    const clients = 8;
    // Every client names the root as the parent it saw; none names a revision.
    const results = await Promise.all(
      Array.from({ length: clients }, (_, c) =>
        ctx.store().appendEntries(owner, id, chain(`client${c}`, 2), { underLeaf: true }),
      ),
    );
    for (const result of results) assert.equal(result.appended.length, 2);
    assert.deepEqual(new Set(results.map((r) => r.revision)).size, clients);
    const { entries, summary } = await ctx.store().loadSession(owner, id);
    assert.equal(summary.revision, 1 + clients);
    assert.equal(entries.length, 2 * clients);
    assertOneChain(entries);
    assert.deepEqual(ids(await ctx.store().readBranch(owner, id)), ids(entries));
    // Each client's batch stays together, in its own order.
    for (let c = 0; c < clients; c++) {
      const first = entries.findIndex((entry) => entry.id === `client${c}-0`);
      assert.equal(entries[first + 1]?.id, `client${c}-1`);
    }
  });

  it("replaces only the first entry's parent, with the leaf as it is when the write runs", async () => {
    const { owner, id } = await fresh();
    await ctx.store().appendEntries(owner, id, chain("a", 2));
    const batch = [make.user("b-0", "a-0", "stale parent"), make.user("b-1", "b-0", "next")];
    const result = await ctx.store().appendEntries(owner, id, batch, { underLeaf: true });
    assert.deepEqual(result.appended, ["b-0", "b-1"]);
    assert.equal(result.leafId, "b-1");
    const { entries } = await ctx.store().loadSession(owner, id);
    assert.deepEqual(
      entries.map((entry) => entry.parentId),
      [null, "a-0", "a-1", "b-0"],
    );
  });

  it("skips a retried batch whose first entry is stored, and writes only what is new", async () => {
    const { owner, id } = await fresh();
    const batch = chain("r", 3);
    const first = await ctx.store().appendEntries(owner, id, batch, { underLeaf: true });
    await ctx.store().appendEntries(owner, id, chain("later", 1), { underLeaf: true });
    const before = await ctx.store().getSummary(owner, id);
    const retry = await ctx.store().appendEntries(owner, id, structuredClone(batch), { underLeaf: true });
    assert.deepEqual(retry.appended, []);
    assert.deepEqual(retry.skipped, ids(batch));
    assert.equal(retry.revision, before.revision);
    assert.equal(retry.leafId, "later-0", "a retry never moves the leaf");
    assert.equal(first.revision, 2);
    // A longer retry: the stored part is skipped, the rest hangs under it as the batch says.
    const longer = [...batch, ...chain("r2", 1, "r-2")];
    const partial = await ctx.store().appendEntries(owner, id, longer, { underLeaf: true });
    assert.deepEqual(partial.appended, ["r2-0"]);
    assert.deepEqual(partial.skipped, ids(batch));
    const stored = (await ctx.store().loadSession(owner, id)).entries;
    assert.equal(stored.find((entry) => entry.id === "r2-0")?.parentId, "r-2");
  });

  it("hangs the first entry at the root on an empty session or a leaf set to null", async () => {
    const { owner, id } = await fresh();
    const lone = make.user("root-0", "not-stored", "first");
    const result = await ctx.store().appendEntries(owner, id, [lone], { underLeaf: true });
    assert.deepEqual(result.appended, ["root-0"]);
    await ctx.store().setLeaf(owner, id, null);
    await ctx.store().appendEntries(owner, id, [make.user("root-1", "root-0", "x")], { underLeaf: true });
    const { entries } = await ctx.store().loadSession(owner, id);
    assert.deepEqual(
      entries.map((entry) => entry.parentId),
      [null, null],
    );
  });

  it("still checks a named revision, and leaves the leaf when moveLeaf is false", async () => {
    const { owner, id } = await fresh();
    await ctx.store().appendEntries(owner, id, chain("m", 2));
    await rejectsWith(
      ctx.store().appendEntries(owner, id, chain("stale", 1), { underLeaf: true, expectedRevision: 1 }),
      "conflict",
    );
    const side = await ctx
      .store()
      .appendEntries(owner, id, chain("side", 1), { underLeaf: true, moveLeaf: false, expectedRevision: 2 });
    assert.equal(side.leafId, "m-1");
    const stored = (await ctx.store().loadSession(owner, id)).entries;
    assert.equal(stored.find((entry) => entry.id === "side-0")?.parentId, "m-1");
  });
}
