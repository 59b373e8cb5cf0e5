import assert from "node:assert/strict";
import { it } from "node:test";
import { chain, ids, make, newOwner, rejectsWith, type SpecContext } from "./helpers.js";

export function leafSpec(ctx: SpecContext): void {
  it("moves the leaf back, branches on the next append, and keeps every entry", async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    await ctx.store().appendEntries(owner, id, chain("l", 4));
    const moved = await ctx.store().setLeaf(owner, id, "l-1");
    assert.equal(moved.leafId, "l-1");
    const branch = await ctx.store().appendEntries(owner, id, [make.user("alt", "l-1", "other way")]);
    assert.equal(branch.leafId, "alt");
    const loaded = await ctx.store().loadSession(owner, id);
    assert.deepEqual(ids(loaded.entries), ["l-0", "l-1", "l-2", "l-3", "alt"]);
    assert.equal(loaded.summary.leafId, "alt");
  });

  it("sets the leaf to null (before the root) and back", async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    await ctx.store().appendEntries(owner, id, chain("z", 2));
    assert.equal((await ctx.store().setLeaf(owner, id, null)).leafId, null);
    assert.equal((await ctx.store().getSummary(owner, id)).leafId, null);
    assert.deepEqual(await ctx.store().readBranch(owner, id), []);
    const root2 = await ctx.store().appendEntries(owner, id, [make.user("root2", null, "new root")]);
    assert.equal(root2.leafId, "root2");
  });

  it("refuses a leaf that is not an entry of the session", async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    const other = await ctx.store().createSession(owner);
    await ctx.store().appendEntries(owner, other.id, chain("elsewhere", 1));
    await rejectsWith(ctx.store().setLeaf(owner, id, "elsewhere-0"), "entry_not_found");
    await rejectsWith(ctx.store().setLeaf(owner, id, "nope"), "entry_not_found");
    assert.equal((await ctx.store().getSummary(owner, id)).revision, 1);
  });
}
