import assert from "node:assert/strict";
import { it } from "node:test";
import { chain, forkedSession, ids, make, newOwner, rejectsWith, type SpecContext } from "./helpers.js";

/** `readBranchSince`: the part of the leaf's path a reader holding it up to a known entry lacks. */
export function branchSinceSpec(ctx: SpecContext): void {
  const forked = () => forkedSession(ctx);

  it("reads only the path after a known entry of it, with the leaf and revision it read", async () => {
    const { owner, id, revision } = await forked();
    const since = await ctx.store().readBranchSince(owner, id, "a");
    assert.deepEqual(ids(since.entries), ["c", "d"]);
    assert.equal(since.complete, false);
    assert.equal(since.leafId, "d");
    assert.equal(since.revision, revision);
    const whole = await ctx.store().readBranch(owner, id);
    assert.deepEqual(since.entries, whole.slice(2), "the same entries readBranch gives");
    assert.deepEqual(ids((await ctx.store().readBranchSince(owner, id, "root")).entries), ["a", "c", "d"]);
  });

  it("reads nothing when the known entry is the leaf", async () => {
    const { owner, id } = await forked();
    assert.deepEqual(await ctx.store().readBranchSince(owner, id, "d"), {
      entries: [],
      complete: false,
      leafId: "d",
      revision: (await ctx.store().getSummary(owner, id)).revision,
    });
    const atB = await ctx.store().readBranchSince(owner, id, "b", "b");
    assert.deepEqual([atB.entries, atB.complete, atB.leafId], [[], false, "b"]);
  });

  it("reads the whole path when the known entry is on another branch, unknown or null", async () => {
    const { owner, id } = await forked();
    for (const known of ["b", "r2", "missing", null]) {
      const since = await ctx.store().readBranchSince(owner, id, known);
      assert.deepEqual(ids(since.entries), ["root", "a", "c", "d"], `known ${known}`);
      assert.equal(since.complete, true, `known ${known}`);
    }
    // Below the leaf is not on the path either: the path to c does not hold d.
    const toC = await ctx.store().readBranchSince(owner, id, "d", "c");
    assert.deepEqual([ids(toC.entries), toC.complete], [["root", "a", "c"], true]);
  });

  it("reads towards any given entry, and nothing towards null", async () => {
    const { owner, id, revision } = await forked();
    const toB = await ctx.store().readBranchSince(owner, id, "a", "b");
    assert.deepEqual([ids(toB.entries), toB.complete, toB.leafId], [["b"], false, "b"]);
    assert.deepEqual(await ctx.store().readBranchSince(owner, id, "a", null), {
      entries: [],
      complete: true,
      leafId: null,
      revision,
    });
  });

  it("answers entry_not_found for an unknown leaf, whatever the known entry", async () => {
    const { owner, id } = await forked();
    await rejectsWith(ctx.store().readBranchSince(owner, id, "a", "missing"), "entry_not_found");
    await rejectsWith(ctx.store().readBranchSince(owner, id, "missing", "missing"), "entry_not_found");
    await rejectsWith(ctx.store().readBranchSince(owner, id, null, "missing"), "entry_not_found");
  });

  it("reads an empty session as an empty, complete path", async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    assert.deepEqual(await ctx.store().readBranchSince(owner, id, "anything"), {
      entries: [],
      complete: true,
      leafId: null,
      revision: 1,
    });
  });

  it("answers session_not_found as readBranch does: deleted, missing, another owner's", async () => {
    const { owner, id } = await forked();
    await rejectsWith(ctx.store().readBranchSince(newOwner(), id, "a"), "session_not_found");
    await rejectsWith(ctx.store().readBranchSince(owner, "no-such-session", "a"), "session_not_found");
    await ctx.store().deleteSession(owner, id);
    await rejectsWith(ctx.store().readBranch(owner, id), "session_not_found");
    await rejectsWith(ctx.store().readBranchSince(owner, id, "a"), "session_not_found");
    await rejectsWith(ctx.store().readBranchSince(owner, id, null), "session_not_found");
    await ctx.store().restoreSession(owner, id);
    assert.deepEqual(ids((await ctx.store().readBranchSince(owner, id, "c")).entries), ["d"]);
  });

  it("follows a conversation a turn at a time on a deep path", async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    const deep = chain("deep", 2000);
    await ctx.store().appendEntries(owner, id, deep);
    let known = (await ctx.store().readBranchSince(owner, id, null)).leafId;
    assert.equal(known, "deep-1999");
    for (let turn = 0; turn < 3; turn++) {
      const turnEntries = chain(`turn${turn}`, 2, known);
      await ctx.store().appendEntries(owner, id, turnEntries);
      const since = await ctx.store().readBranchSince(owner, id, known);
      assert.deepEqual([ids(since.entries), since.complete], [ids(turnEntries), false]);
      known = since.leafId;
    }
    assert.equal((await ctx.store().readBranch(owner, id)).length, 2006);
  });

  it("gives payloads as readBranch gives them: resolved by default, references when asked", async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    // Long texts: a store with a blob store and a low offload threshold keeps them out of line.
    const long = (n: number) => `${"a long text part that may be kept out of line ".repeat(8)}${n}`;
    await ctx
      .store()
      .appendEntries(owner, id, [
        make.user("p0", null, long(0)),
        make.assistant("p1", "p0", long(1)),
        make.user("p2", "p1", long(2)),
        make.assistant("p3", "p2", long(3)),
      ]);
    const whole = await ctx.store().readBranch(owner, id);
    const since = await ctx.store().readBranchSince(owner, id, "p1");
    assert.deepEqual(since.entries, whole.slice(2));
    assert.ok(JSON.stringify(since.entries).includes(long(3)), "the text comes back whole");
    const asStored = await ctx.store().readBranch(owner, id, undefined, { references: true });
    const sinceStored = await ctx.store().readBranchSince(owner, id, "p1", undefined, { references: true });
    assert.deepEqual(sinceStored.entries, asStored.slice(2));
    const wholeStored = await ctx
      .store()
      .readBranchSince(owner, id, "elsewhere", undefined, { references: true });
    assert.deepEqual(wholeStored.entries, asStored);
  });

  it("hands out copies: changing what it gave changes nothing stored", async () => {
    const { owner, id } = await forked();
    const first = await ctx.store().readBranchSince(owner, id, "a");
    (first.entries[0] as { parentId: string | null }).parentId = "changed";
    const again = await ctx.store().readBranchSince(owner, id, "a");
    assert.equal(again.entries[0]?.parentId, "a");
  });
}
