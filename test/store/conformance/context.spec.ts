import assert from "node:assert/strict";
import { it } from "node:test";
import { projectContext } from "../../../src/core/context.js";
import type { SessionEntry } from "../../../src/core/entry.js";
import { SessionTree } from "../../../src/core/tree.js";
import { make, newOwner, type SpecContext } from "./helpers.js";

/** A session that exercises every rule of the projection: model, thinking, compaction, summaries, custom. */
function richSession(): { entries: SessionEntry[]; leaves: string[] } {
  const e = ({
    type,
    id,
    parentId,
    ...fields
  }: { type: string; id: string; parentId: string | null } & Record<string, unknown>) =>
    make.entry(type, id, parentId, fields);
  const entries: SessionEntry[] = [
    e({ type: "model_change", id: "mc", parentId: null, provider: "p0", modelId: "m0" }),
    e({ type: "thinking_level_change", id: "tl", parentId: "mc", thinkingLevel: "high" }),
    make.user("u1", "tl", "first question"),
    make.assistant("a1", "u1", "first answer", { provider: "p", model: "m1" }),
    make.user("u2", "a1", "second question"),
    make.assistant("a2", "u2", "second answer", { provider: "p", model: "m2" }),
    e({
      type: "compaction",
      id: "cp",
      parentId: "a2",
      summary: "so far",
      firstKeptEntryId: "u2",
      tokensBefore: 99,
    }),
    e({ type: "custom", id: "cu", parentId: "cp", customType: "ext", data: { n: 1 } }),
    e({
      type: "custom_message",
      id: "cm",
      parentId: "cu",
      customType: "note",
      content: "remember",
      display: true,
    }),
    make.user("u3", "cm", "after compaction"),
    e({ type: "branch_summary", id: "bs", parentId: "a1", fromId: "a2", summary: "tried another way" }),
    make.user("u4", "bs", "on the other branch"),
    e({ type: "label", id: "lb", parentId: "u4", targetId: "u1", label: "start" }),
  ];
  return { entries, leaves: ["u3", "lb", "a1", "cp"] };
}

export function contextSpec(ctx: SpecContext): void {
  it("projects the same context from a stored branch as core does from the same path", async () => {
    const owner = newOwner();
    const { id } = await ctx.store().createSession(owner);
    const { entries, leaves } = richSession();
    await ctx.store().appendEntries(owner, id, entries);
    const tree = new SessionTree();
    for (const entry of entries) tree.load(entry);
    for (const leaf of leaves) {
      await ctx.store().setLeaf(owner, id, leaf);
      const fromStore = projectContext(await ctx.store().readBranch(owner, id));
      const fromCore = projectContext(tree.getBranch(leaf));
      assert.deepEqual(fromStore, fromCore, `context at ${leaf}`);
      assert.ok(fromStore.messages.length > 0);
    }
    await ctx.store().setLeaf(owner, id, "u3");
    const context = projectContext(await ctx.store().readBranch(owner, id));
    assert.equal(context.messages[0]?.role, "compactionSummary");
    assert.deepEqual(context.model, { provider: "p", modelId: "m2" });
    assert.equal(context.thinkingLevel, "high");
    assert.deepEqual(context.extensionState, { ext: { n: 1 } });
  });
}
