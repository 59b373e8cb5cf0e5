import assert from "node:assert/strict";
import { it } from "node:test";
import { chain, ids, make, newOwner, rejectsWith, type SpecContext } from "./helpers.js";

export function branchSpec(ctx: SpecContext): void {
  /** root → a → b, with a second branch a → c → d and a third root r2. */
  async function forked() {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    await ctx
      .store()
      .appendEntries(owner, id, [
        make.user("root", null, "start"),
        make.assistant("a", "root", "reply"),
        make.user("b", "a", "first way"),
        make.user("c", "a", "second way"),
        make.assistant("d", "c", "second reply"),
        make.user("r2", null, "another root"),
      ]);
    await ctx.store().setLeaf(owner, id, "d");
    return { owner, id };
  }

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
