import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type ProjectedContext, projectContext } from "../../src/core/context.js";
import { LEAF_MARKER_TYPE } from "../../src/core/entry.js";
import { SessionTree } from "../../src/core/tree.js";
import { entryMaker, messageMaker } from "../support/messages.js";

const { entry, user: userEntry, assistant: reply } = entryMaker();
const { user } = messageMaker();
/** Each assistant names its own model, so the context's model shows which reply it came from. */
const assistant = (id: string, parentId: string | null) =>
  reply(id, parentId, id, { provider: "p", model: `model-${id}` });

/**
 * Every kind of entry the projection treats differently, on two branches: one with a compaction
 * keeping a range, one with a compaction whose kept entry is not on its path.
 */
function mixedTree(): SessionTree {
  const tree = new SessionTree();
  const entries = [
    userEntry("u1", null),
    assistant("a1", "u1"),
    entry("thinking_level_change", "t1", "a1", { thinkingLevel: "high" }),
    entry("custom", "s1", "t1", { customType: "ext", data: { n: 1 } }),
    entry("custom_message", "cm", "s1", { customType: "note", content: "hi", display: true }),
    entry("branch_summary", "bs-empty", "cm", { fromId: "a1", summary: "" }),
    entry("branch_summary", "bs", "bs-empty", { fromId: "a1", summary: "went elsewhere" }),
    userEntry("u2", "bs"),
    entry("model_change", "mc", "u2", { provider: "q", modelId: "m2" }),
    entry("compaction", "c1", "mc", { summary: "sum", firstKeptEntryId: "u2", tokensBefore: 9 }),
    entry("label", "l1", "c1", { targetId: "u1", label: "start" }),
    userEntry("u3", "l1"),
    entry("custom", "s2", "u3", { customType: "ext", data: { n: 2 } }),
    assistant("a3", "s2"),
    // A second branch from a1, compacted with a kept entry on the other branch.
    entry("compaction", "c2", "a1", { summary: "other", firstKeptEntryId: "u3", tokensBefore: 4 }),
    userEntry("u4", "c2"),
    entry("custom", "marker", "u4", { customType: LEAF_MARKER_TYPE }),
  ];
  for (const e of entries) tree.load(e);
  return tree;
}

/** No unused slot may show: every position of both arrays holds a value. */
function assertDense(context: ProjectedContext): void {
  assert.equal(context.messages.length, context.messageEntryIds.length);
  assert.equal(Object.keys(context.messages).length, context.messages.length);
  assert.equal(Object.keys(context.messageEntryIds).length, context.messageEntryIds.length);
}

describe("SessionTree.getBranchSlots and projectContext over slots", () => {
  test("the slots name the same entries as getBranch, in the same order", () => {
    const tree = mixedTree();
    for (const id of [undefined, null, "unknown", ...tree.getStoredEntries().map((e) => e.id)]) {
      const { entries, slots } = tree.getBranchSlots(id);
      assert.deepEqual(
        Array.from(slots, (slot) => entries[slot]),
        tree.getBranch(id),
        `branch at ${id}`,
      );
    }
    assert.equal(tree.getBranchSlots("unknown").slots.length, 0);
    assert.equal(tree.getBranchSlots(null).slots.length, 0);
  });

  test("projecting the slots gives exactly the context of the copied path, at every entry", () => {
    const tree = mixedTree();
    for (const id of tree.getStoredEntries().map((e) => e.id)) {
      const fromSlots = projectContext(tree.getBranchSlots(id));
      const fromPath = projectContext(tree.getBranch(id));
      assert.deepStrictEqual(fromSlots, fromPath, `context at ${id}`);
      assert.equal(JSON.stringify(fromSlots), JSON.stringify(fromPath));
      assertDense(fromSlots);
    }
  });

  test("a compaction: its summary, the kept range, then what follows; the arrays hold nothing more", () => {
    const tree = mixedTree();
    const context = projectContext(tree.getBranchSlots("a3"));
    assert.deepEqual(context.messageEntryIds, ["c1", "u2", "u3", "a3"]);
    assert.deepEqual(context.compaction, { entryId: "c1", firstKeptEntryId: "u2", keptFound: true });
    assert.deepEqual(context.extensionState, { ext: { n: 2 } });
    assert.equal(context.thinkingLevel, "high");
    assert.deepEqual(context.model, { provider: "p", modelId: "model-a3" });
    assertDense(context);

    const elsewhere = projectContext(tree.getBranchSlots("marker"));
    assert.deepEqual(elsewhere.messageEntryIds, ["c2", "u4"]);
    assert.equal(elsewhere.compaction?.keptFound, false);
    assert.deepEqual(
      elsewhere.warnings.map((w) => w.code),
      ["first_kept_not_on_path"],
    );
    assert.deepEqual(elsewhere.extensionState, {});
    assertDense(elsewhere);
  });

  test("branch summaries: an empty one is left out, custom messages become role custom", () => {
    const context = projectContext(mixedTree().getBranchSlots("u2"));
    assert.deepEqual(context.messageEntryIds, ["u1", "a1", "cm", "bs", "u2"]);
    assert.deepEqual(
      context.messages.map((m) => m.role),
      ["user", "assistant", "custom", "branchSummary", "user"],
    );
    assertDense(context);
  });

  test("the message ids, built on first read, do not change when the tree grows first; they can be replaced", () => {
    const tree = mixedTree();
    const context = projectContext(tree.getBranchSlots("a3"));
    tree.branch("a3");
    for (let i = 0; i < 100; i++) tree.append({ type: "message", message: user(`${i}`) });
    assert.deepEqual(context.messageEntryIds, ["c1", "u2", "u3", "a3"]);
    assert.deepEqual({ ...context }.messageEntryIds, ["c1", "u2", "u3", "a3"], "a spread copies the value");
    context.messageEntryIds = ["x"];
    assert.deepEqual(context.messageEntryIds, ["x"]);
    assert.deepEqual(Object.keys(context), [
      "messages",
      "thinkingLevel",
      "model",
      "extensionState",
      "compaction",
      "messageEntryIds",
      "warnings",
    ]);
  });
});

describe("the lazily built message ids", () => {
  test("become an ordinary property once read; a frozen context still answers them", () => {
    const tree = mixedTree();
    const context = projectContext(tree.getBranchSlots("a3"));
    assert.equal(typeof Object.getOwnPropertyDescriptor(context, "messageEntryIds")?.get, "function");
    assert.deepEqual(context.messageEntryIds, ["c1", "u2", "u3", "a3"]);
    assert.deepEqual(Object.getOwnPropertyDescriptor(context, "messageEntryIds")?.value, [
      "c1",
      "u2",
      "u3",
      "a3",
    ]);
    const frozen = Object.freeze(projectContext(tree.getBranchSlots("a3")));
    assert.deepEqual(frozen.messageEntryIds, ["c1", "u2", "u3", "a3"]);
    assert.deepEqual(frozen.messageEntryIds, ["c1", "u2", "u3", "a3"]);
  });
});
