import assert from "node:assert/strict";
import { it } from "node:test";
import { chain, newOwner, rejectsWith, type SpecContext, sleep } from "./helpers.js";

export function deleteSpec(ctx: SpecContext): void {
  it("soft delete hides the session from loads and writes; restore brings it back whole", async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    await ctx.store().appendEntries(owner, id, chain("d", 3));
    const deleted = await ctx.store().deleteSession(owner, id);
    assert.equal(deleted.revision, 3);
    await rejectsWith(ctx.store().loadSession(owner, id), "session_not_found");
    await rejectsWith(ctx.store().getSummary(owner, id), "session_not_found");
    await rejectsWith(ctx.store().appendEntries(owner, id, chain("e", 1, "d-2")), "session_not_found");
    await rejectsWith(ctx.store().readBranch(owner, id), "session_not_found");
    await rejectsWith(ctx.store().exportJsonl(owner, id), "session_not_found");
    const trash = await ctx.store().getSummary(owner, id, { includeDeleted: true });
    assert.ok(trash.deletedAt !== null && !Number.isNaN(Date.parse(trash.deletedAt)));
    assert.equal((await ctx.store().loadSession(owner, id, { includeDeleted: true })).entries.length, 3);
    await ctx.store().restoreSession(owner, id);
    const back = await ctx.store().loadSession(owner, id);
    assert.equal(back.entries.length, 3);
    assert.equal(back.summary.deletedAt, null);
    assert.equal(back.summary.leafId, "d-2");
  });

  it("purges a session for good, deleted or not", async () => {
    const owner = newOwner();
    const live = await ctx.store().createSession(owner);
    const trashed = await ctx.store().createSession(owner);
    await ctx.store().appendEntries(owner, live.id, chain("p", 2));
    await ctx.store().deleteSession(owner, trashed.id);
    await ctx.store().purgeSession(owner, live.id);
    await ctx.store().purgeSession(owner, trashed.id);
    for (const id of [live.id, trashed.id]) {
      await rejectsWith(ctx.store().getSummary(owner, id, { includeDeleted: true }), "session_not_found");
      await rejectsWith(ctx.store().purgeSession(owner, id), "session_not_found");
    }
    // The id is free again, and the new session starts empty.
    const again = await ctx.store().createSession(owner, { id: live.id });
    assert.equal(again.entryCount, 0);
    assert.deepEqual((await ctx.store().loadSession(owner, live.id)).entries, []);
  });

  it("retention purges only sessions deleted before the cutoff, of every owner", async () => {
    const [alice, bob] = [newOwner(), newOwner()];
    const old1 = await ctx.store().createSession(alice);
    const old2 = await ctx.store().createSession(bob);
    const active = await ctx.store().createSession(alice);
    await ctx.store().deleteSession(alice, old1.id);
    await ctx.store().deleteSession(bob, old2.id);
    await sleep(5);
    const cutoff = new Date();
    await sleep(5);
    const recent = await ctx.store().createSession(alice);
    await ctx.store().deleteSession(alice, recent.id);
    const purged = await ctx.store().purgeDeletedBefore(cutoff);
    const mine = purged.filter((p) => p.owner === alice || p.owner === bob);
    assert.deepEqual(
      new Set(mine.map((p) => `${p.owner}/${p.sessionId}`)),
      new Set([`${alice}/${old1.id}`, `${bob}/${old2.id}`]),
    );
    await rejectsWith(ctx.store().getSummary(alice, old1.id, { includeDeleted: true }), "session_not_found");
    assert.ok((await ctx.store().getSummary(alice, recent.id, { includeDeleted: true })).deletedAt);
    assert.equal((await ctx.store().getSummary(alice, active.id)).deletedAt, null);
  });
}
