import assert from "node:assert/strict";
import { it } from "node:test";
import { chain, newOwner, rejectsWith, type SpecContext } from "./helpers.js";

export function createLoadSpec(ctx: SpecContext): void {
  it("creates a session with defaults: revision 1, no leaf, v3 header", async () => {
    const owner = newOwner();
    const summary = await ctx.store().createSession(owner);
    assert.match(summary.id, /^[0-9a-f-]{36}$/);
    assert.equal(summary.owner, owner);
    assert.equal(summary.revision, 1);
    assert.equal(summary.leafId, null);
    assert.equal(summary.entryCount, 0);
    assert.equal(summary.messageCount, 0);
    assert.equal(summary.firstMessage, "");
    assert.equal(summary.deletedAt, null);
    const loaded = await ctx.store().loadSession(owner, summary.id);
    assert.deepEqual(loaded.summary, summary);
    assert.equal(loaded.header.type, "session");
    assert.equal(loaded.header.version, 3);
    assert.equal(loaded.header.id, summary.id);
    assert.deepEqual(loaded.entries, []);
  });

  it("keeps what creation was given: id, cwd, name, parent session, timestamp", async () => {
    const owner = newOwner();
    const id = `s-${Date.now()}-given`;
    const timestamp = "2025-05-05T05:05:05.005Z";
    const init = { id, cwd: "/work/x", name: "Planning", parentSession: "other.jsonl", timestamp };
    const summary = await ctx.store().createSession(owner, init);
    assert.equal(summary.id, id);
    assert.equal(summary.cwd, "/work/x");
    assert.equal(summary.name, "Planning");
    assert.equal(summary.parentSession, "other.jsonl");
    assert.equal(summary.createdAt, timestamp);
    const loaded = await ctx.store().loadSession(owner, id);
    assert.equal(loaded.header.cwd, "/work/x");
    assert.equal(loaded.header.timestamp, timestamp);
    assert.deepEqual(await ctx.store().getSummary(owner, id), summary);
  });

  it("refuses a second session with the same id for one owner, not for another owner", async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    const error = await rejectsWith(ctx.store().createSession(owner, { id }), "conflict");
    assert.equal(error.currentRevision, 1);
    const other = await ctx.store().createSession(newOwner(), { id });
    assert.equal(other.id, id);
  });

  it("refuses unsafe session ids and empty owners", async () => {
    await rejectsWith(ctx.store().createSession(newOwner(), { id: "../etc" }), "invalid_argument");
    await rejectsWith(ctx.store().createSession(newOwner(), { id: "a b" }), "invalid_argument");
    await rejectsWith(ctx.store().createSession(""), "invalid_argument");
  });

  it("answers session_not_found for an unknown id", async () => {
    await rejectsWith(ctx.store().loadSession(newOwner(), "no-such-session"), "session_not_found");
    await rejectsWith(ctx.store().getSummary(newOwner(), "no-such-session"), "session_not_found");
  });

  it("hands out copies: changing what was appended or read does not change the store", async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    const batch = chain("cp", 2);
    const original = structuredClone(batch);
    await ctx.store().appendEntries(owner, id, batch);
    (batch[0] as { timestamp: string }).timestamp = "changed after append";
    const loaded = await ctx.store().loadSession(owner, id);
    (loaded.entries[1] as { timestamp: string }).timestamp = "changed after load";
    const branch = await ctx.store().readBranch(owner, id);
    (branch[0] as { timestamp: string }).timestamp = "changed after readBranch";
    assert.deepEqual((await ctx.store().loadSession(owner, id)).entries, original);
    assert.deepEqual(await ctx.store().readBranch(owner, id), original);
  });

  it("survives close and a new instance on the same location", {
    skip: !ctx.target.capabilities.persistent,
  }, async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner, { cwd: "/p", name: "kept" });
    await ctx.store().appendEntries(owner, id, chain("p", 5));
    await ctx.store().setLeaf(owner, id, "p-2");
    const before = await ctx.store().loadSession(owner, id);
    const second = await ctx.target.create();
    await second.init();
    try {
      assert.deepEqual(await second.loadSession(owner, id), before);
      assert.equal((await second.getSummary(owner, id)).leafId, "p-2");
    } finally {
      await second.close();
      await second.close();
    }
  });
}
