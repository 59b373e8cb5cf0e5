import assert from "node:assert/strict";
import { it } from "node:test";
import { chain, ids, make, newOwner, type SpecContext } from "./helpers.js";

const SIZE = 10_000;

export function largeSpec(ctx: SpecContext): void {
  it(`holds a ${SIZE.toLocaleString("en")}-entry session: batched appends, load, branch read, paging`, async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    const all = chain("big", SIZE);
    for (let i = 0; i < SIZE; i += 1000) {
      const result = await ctx.store().appendEntries(owner, id, all.slice(i, i + 1000));
      assert.equal(result.appended.length, 1000);
    }
    // A side branch near the root: the branch read must leave it out.
    await ctx.store().appendEntries(owner, id, [make.user("side", "big-10", "side")], { moveLeaf: false });
    const summary = await ctx.store().getSummary(owner, id);
    assert.equal(summary.entryCount, SIZE + 1);
    assert.equal(summary.leafId, `big-${SIZE - 1}`);
    assert.equal(summary.revision, 12);

    const loaded = await ctx.store().loadSession(owner, id);
    assert.equal(loaded.entries.length, SIZE + 1);
    assert.deepEqual(loaded.entries.slice(0, SIZE), all);

    const started = performance.now();
    const branch = await ctx.store().readBranch(owner, id);
    const elapsed = performance.now() - started;
    assert.deepEqual(ids(branch), ids(all));
    assert.ok(elapsed < 5000, `branch read took ${elapsed.toFixed(0)} ms`);

    let count = 0;
    for (let after: number | null = 0; after !== null; ) {
      const page = await ctx.store().readEntries(owner, id, { after, limit: 5000 });
      count += page.entries.length;
      after = page.nextAfter;
    }
    assert.equal(count, SIZE + 1);
  });
}
