import assert from "node:assert/strict";
import { it } from "node:test";
import { chain, forkedSession, ids, newOwner, rejectsWith, type SpecContext } from "./helpers.js";

export function branchSpec(ctx: SpecContext): void {
  const forked = () => forkedSession(ctx);

  it("reads the leaf's path root → leaf, and only that path", async () => {
    const { owner, id } = await forked();
    assert.deepEqual(ids(await ctx.store().readBranch(owner, id)), ["root", "a", "c", "d"]);
  });

  it("reads the path to any given entry", async () => {
    const { owner, id } = await forked();
    assert.deepEqual(ids(await ctx.store().readBranch(owner, id, "b")), ["root", "a", "b"]);
    assert.deepEqual(ids(await ctx.store().readBranch(owner, id, "r2")), ["r2"]);
    assert.deepEqual(await ctx.store().readBranch(owner, id, null), []);
    const full = await ctx.store().readBranch(owner, id, "a");
    assert.deepEqual(full, (await ctx.store().loadSession(owner, id)).entries.slice(0, 2));
  });

  it("answers entry_not_found for an unknown entry", async () => {
    const { owner, id } = await forked();
    await rejectsWith(ctx.store().readBranch(owner, id, "missing"), "entry_not_found");
  });

  it("reads a deep branch", async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    const deep = chain("deep", 2000);
    await ctx.store().appendEntries(owner, id, deep);
    const path = await ctx.store().readBranch(owner, id);
    assert.equal(path.length, 2000);
    assert.deepEqual(ids(path), ids(deep));
  });
}
