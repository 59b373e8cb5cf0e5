import assert from "node:assert/strict";
import { it } from "node:test";
import type { SessionEntry } from "../../../src/core/entry.js";
import { LEAF_MARKER_TYPE } from "../../../src/core/entry.js";
import { chain, ids, make, newOwner, rejectsWith, type SpecContext } from "./helpers.js";

export function appendSpec(ctx: SpecContext): void {
  async function fresh() {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    return { owner, id };
  }

  it("appends a batch in order, moves the leaf, counts, and bumps the revision once", async () => {
    const { owner, id } = await fresh();
    const batch = chain("a", 4);
    const result = await ctx.store().appendEntries(owner, id, batch);
    assert.deepEqual(result.appended, ids(batch));
    assert.deepEqual(result.skipped, []);
    assert.equal(result.leafId, "a-3");
    assert.equal(result.revision, 2);
    const loaded = await ctx.store().loadSession(owner, id);
    assert.deepEqual(loaded.entries, batch);
    assert.equal(loaded.summary.entryCount, 4);
    assert.equal(loaded.summary.messageCount, 4);
    assert.equal(loaded.summary.firstMessage, "a question 0");
    assert.equal(loaded.summary.revision, 2);
    assert.ok(!Number.isNaN(Date.parse(loaded.summary.modifiedAt)));
  });

  it("skips an identical retry without a new revision, and refuses a changed duplicate", async () => {
    const { owner, id } = await fresh();
    const batch = chain("r", 3);
    const first = await ctx.store().appendEntries(owner, id, batch);
    const retry = await ctx.store().appendEntries(owner, id, structuredClone(batch), { expectedRevision: 1 });
    assert.deepEqual(retry.appended, []);
    assert.deepEqual(retry.skipped, ids(batch));
    assert.equal(retry.revision, first.revision);
    // Key order does not matter: the content does.
    const reordered = { ...(batch[0] as SessionEntry) };
    const flipped = Object.fromEntries(Object.entries(reordered).reverse()) as unknown as SessionEntry;
    assert.deepEqual((await ctx.store().appendEntries(owner, id, [flipped])).skipped, ["r-0"]);
    const changed = make.user("r-1", "r-0", "something else");
    await rejectsWith(ctx.store().appendEntries(owner, id, [changed]), "duplicate_entry");
    // A partly new batch writes only the new entries.
    const more = [...batch, ...chain("r2", 2, "r-2")];
    const mixed = await ctx.store().appendEntries(owner, id, more);
    assert.deepEqual(mixed.appended, ["r2-0", "r2-1"]);
    assert.deepEqual(mixed.skipped, ids(batch));
    assert.equal(mixed.revision, first.revision + 1);
  });

  it("requires each parent to be stored or earlier in the batch", async () => {
    const { owner, id } = await fresh();
    await rejectsWith(
      ctx.store().appendEntries(owner, id, [make.user("x", "missing", "hi")]),
      "invalid_entry",
    );
    const later = [make.user("c", "b", "child first"), make.user("b", null, "parent second")];
    await rejectsWith(ctx.store().appendEntries(owner, id, later), "invalid_entry");
    await rejectsWith(
      ctx.store().appendEntries(owner, id, [make.user("self", "self", "loop")]),
      "invalid_entry",
    );
    assert.equal((await ctx.store().getSummary(owner, id)).revision, 1);
  });

  it("is atomic: a batch with one bad entry writes nothing", async () => {
    const { owner, id } = await fresh();
    const good = chain("g", 3);
    const bad = make.entry("message", "g-bad", "g-2");
    await rejectsWith(
      ctx.store().appendEntries(owner, id, [...good, bad as unknown as SessionEntry]),
      "invalid_entry",
    );
    await rejectsWith(
      ctx.store().appendEntries(owner, id, [...good, make.user("g-0", null, "changed")]),
      "duplicate_entry",
    );
    const loaded = await ctx.store().loadSession(owner, id);
    assert.deepEqual(loaded.entries, []);
    assert.equal(loaded.summary.revision, 1);
  });

  it("refuses unsafe ids, invalid entries and leaf markers", async () => {
    const { owner, id } = await fresh();
    await rejectsWith(ctx.store().appendEntries(owner, id, [make.user("../x", null, "hi")]), "invalid_entry");
    await rejectsWith(ctx.store().appendEntries(owner, id, [make.user("a/b", null, "hi")]), "invalid_entry");
    const noTimestamp = { type: "label", id: "l1", parentId: null, targetId: "x" };
    await rejectsWith(
      ctx.store().appendEntries(owner, id, [noTimestamp as unknown as SessionEntry]),
      "invalid_entry",
    );
    const marker = make.entry("custom", "m1", null, { customType: LEAF_MARKER_TYPE });
    await rejectsWith(ctx.store().appendEntries(owner, id, [marker]), "invalid_entry");
  });

  it("takes a copy's history as a file read takes it: malformed entries hold their place, markers built on stay", async () => {
    const { owner, id } = await fresh();
    // A known type whose own fields another writer named otherwise (pi keeps such a line).
    const malformed = make.entry("thinking_level_change", "h-t", "h-0", { thinking_level: "high" });
    const marker = make.entry("custom", "h-m", "h-t", { customType: LEAF_MARKER_TYPE });
    const after = make.user("h-1", "h-m", "after them");
    const history = [...chain("h", 1), malformed, marker, after];
    await rejectsWith(ctx.store().appendEntries(owner, id, history), "invalid_entry");
    await rejectsWith(ctx.store().appendEntries(owner, id, [...chain("h", 1), malformed]), "invalid_entry");
    const result = await ctx.store().appendEntries(owner, id, history, { history: true });
    assert.deepEqual(result.appended, ids(history));
    const { entries } = await ctx.store().loadSession(owner, id);
    assert.deepEqual(entries, history);
    const branch = await ctx.store().readBranch(owner, id);
    assert.deepEqual(ids(branch), ["h-0", "h-t", "h-m", "h-1"]);
    // Still refused without the flag: a client's new entry must be well formed.
    const again = make.entry("model_change", "h-x", "h-1", { model: "a/b" });
    await rejectsWith(ctx.store().appendEntries(owner, id, [again]), "invalid_entry");
    // An entry with no timestamp is malformed history too; one with no id is no entry at all.
    const noTimestamp = { type: "label", id: "h-y", parentId: "h-1", targetId: "h-0" };
    await rejectsWith(
      ctx.store().appendEntries(owner, id, [noTimestamp as unknown as SessionEntry]),
      "invalid_entry",
    );
    const kept = await ctx
      .store()
      .appendEntries(owner, id, [noTimestamp as unknown as SessionEntry], { history: true });
    assert.deepEqual(kept.appended, ["h-y"]);
    const noId = { type: "label", parentId: "h-y", timestamp: "2026-01-01T00:00:00.000Z", targetId: "h-0" };
    await rejectsWith(
      ctx.store().appendEntries(owner, id, [noId as unknown as SessionEntry], { history: true }),
      "invalid_entry",
    );
  });

  it("keeps unknown entry types and unknown fields untouched", async () => {
    const { owner, id } = await fresh();
    const odd = make.entry("future_thing", "f1", null, { extra: { deep: [1, "two", null] } });
    const withField = { ...make.user("f2", "f1", "hello"), vendorField: "kept" } as unknown as SessionEntry;
    await ctx.store().appendEntries(owner, id, [odd, withField]);
    const { entries } = await ctx.store().loadSession(owner, id);
    assert.deepEqual(entries, [odd, withField]);
  });

  it("does not move the leaf when moveLeaf is false", async () => {
    const { owner, id } = await fresh();
    await ctx.store().appendEntries(owner, id, chain("m", 2));
    const side = await ctx
      .store()
      .appendEntries(owner, id, [make.user("side", "m-0", "aside")], { moveLeaf: false });
    assert.equal(side.leafId, "m-1");
    assert.equal(side.revision, 3);
  });

  it("derives the name from session_info entries (latest wins, empty clears)", async () => {
    const { owner, id } = await fresh();
    const info = (entryId: string, parentId: string | null, name: string) =>
      make.entry("session_info", entryId, parentId, { name });
    await ctx.store().appendEntries(owner, id, [info("i1", null, "  First  ")]);
    assert.equal((await ctx.store().getSummary(owner, id)).name, "First");
    await ctx.store().appendEntries(owner, id, [info("i2", "i1", "Second")]);
    assert.equal((await ctx.store().getSummary(owner, id)).name, "Second");
    await ctx.store().appendEntries(owner, id, [info("i3", "i2", "")]);
    assert.equal((await ctx.store().getSummary(owner, id)).name, undefined);
  });

  it("pages entries in storage order with readEntries", async () => {
    const { owner, id } = await fresh();
    const batch = chain("p", 7);
    await ctx.store().appendEntries(owner, id, batch);
    const seen: string[] = [];
    let after: number | null = 0;
    let pages = 0;
    while (after !== null) {
      const page = await ctx.store().readEntries(owner, id, { after, limit: 3 });
      seen.push(...ids(page.entries));
      after = page.nextAfter;
      pages++;
    }
    assert.deepEqual(seen, ids(batch));
    assert.equal(pages, 3);
    assert.deepEqual((await ctx.store().readEntries(owner, id, { after: 7 })).entries, []);
    await rejectsWith(ctx.store().readEntries(owner, id, { after: -1 }), "invalid_argument");
    await rejectsWith(ctx.store().readEntries(owner, id, { limit: 0 }), "invalid_argument");
  });
}
