import assert from "node:assert/strict";
import { it } from "node:test";
import { chain, make, newOwner, rejectsWith, type SpecContext } from "./helpers.js";

export function conflictsSpec(ctx: SpecContext): void {
  it("rejects a stale expectedRevision with the current revision, and writes nothing", async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    const first = await ctx.store().appendEntries(owner, id, chain("c", 2), { expectedRevision: 1 });
    assert.equal(first.revision, 2);
    const error = await rejectsWith(
      ctx.store().appendEntries(owner, id, [make.user("c-x", "c-1", "late")], { expectedRevision: 1 }),
      "conflict",
    );
    assert.equal(error.currentRevision, 2);
    assert.equal((await ctx.store().loadSession(owner, id)).entries.length, 2);
    const ok = await ctx
      .store()
      .appendEntries(owner, id, [make.user("c-x", "c-1", "late")], { expectedRevision: 2 });
    assert.equal(ok.revision, 3);
  });

  it("checks expectedRevision on setLeaf, delete and restore", async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    await ctx.store().appendEntries(owner, id, chain("w", 3));
    const leafError = await rejectsWith(
      ctx.store().setLeaf(owner, id, "w-0", { expectedRevision: 1 }),
      "conflict",
    );
    assert.equal(leafError.currentRevision, 2);
    assert.equal((await ctx.store().setLeaf(owner, id, "w-0", { expectedRevision: 2 })).revision, 3);
    await rejectsWith(ctx.store().deleteSession(owner, id, { expectedRevision: 2 }), "conflict");
    assert.equal((await ctx.store().deleteSession(owner, id, { expectedRevision: 3 })).revision, 4);
    await rejectsWith(ctx.store().restoreSession(owner, id, { expectedRevision: 3 }), "conflict");
    assert.equal((await ctx.store().restoreSession(owner, id, { expectedRevision: 4 })).revision, 5);
  });

  it("lets exactly one of two writers with the same expected revision win", async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    const results = await Promise.allSettled([
      ctx.store().appendEntries(owner, id, [make.user("one", null, "1")], { expectedRevision: 1 }),
      ctx.store().appendEntries(owner, id, [make.user("two", null, "2")], { expectedRevision: 1 }),
    ]);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r) => r.status === "rejected");
    assert.equal(won.length, 1);
    assert.equal(lost.length, 1);
    assert.equal((lost[0] as PromiseRejectedResult).reason.code, "conflict");
    const loaded = await ctx.store().loadSession(owner, id);
    assert.equal(loaded.entries.length, 1);
    assert.equal(loaded.summary.revision, 2);
  });

  it("increments the revision by exactly one per changing write and never for a no-op", async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    const seen = [1];
    const batch = chain("n", 2);
    seen.push((await ctx.store().appendEntries(owner, id, batch)).revision);
    seen.push((await ctx.store().appendEntries(owner, id, batch)).revision);
    seen.push((await ctx.store().setLeaf(owner, id, "n-0")).revision);
    seen.push((await ctx.store().setLeaf(owner, id, "n-0")).revision);
    seen.push((await ctx.store().appendEntries(owner, id, [])).revision);
    seen.push((await ctx.store().deleteSession(owner, id)).revision);
    seen.push((await ctx.store().deleteSession(owner, id)).revision);
    seen.push((await ctx.store().restoreSession(owner, id)).revision);
    seen.push((await ctx.store().restoreSession(owner, id)).revision);
    assert.deepEqual(seen, [1, 2, 2, 3, 3, 3, 4, 4, 5, 5]);
    assert.equal((await ctx.store().getSummary(owner, id)).revision, 5);
  });
}
