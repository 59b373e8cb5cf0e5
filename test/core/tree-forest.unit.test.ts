import assert from "node:assert/strict";
import { test } from "node:test";
import { LEAF_MARKER_TYPE, type SessionEntry } from "../../src/core/entry.js";
import { SessionTree, type SessionTreeNode } from "../../src/core/tree.js";

/**
 * getTree builds each children array at its final size (tree-forest.ts); its shape against the
 * plain definition is checked in tree-children.test.ts. Here: what a caller may do with the
 * forest it gets, and that the arrays hold exactly the children (no holes, no spare room seen).
 */

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const message = (id: string, parentId: string | null, second: number): SessionEntry =>
  ({
    type: "message",
    id,
    parentId,
    timestamp: at(second),
    message: { role: "user", content: id, timestamp: second },
  }) as SessionEntry;

function sampleTree(): SessionTree {
  const tree = new SessionTree();
  for (const entry of [
    message("root", null, 1),
    message("b", "root", 5),
    message("a", "root", 3),
    message("c", "a", 6),
    message("early", "late", 7), // stored before its parent
    message("late", "c", 8),
    message("orphan", "missing", 9),
  ])
    tree.load(entry);
  tree.load({
    type: "custom",
    id: "marker",
    parentId: "c",
    timestamp: at(10),
    customType: LEAF_MARKER_TYPE,
  } as SessionEntry);
  tree.load({
    type: "label",
    id: "l",
    parentId: "c",
    timestamp: at(11),
    targetId: "a",
    label: "here",
  } as SessionEntry);
  return tree;
}

function flatten(roots: SessionTreeNode[]): SessionTreeNode[] {
  const out: SessionTreeNode[] = [];
  for (const stack = [...roots]; stack.length > 0; ) {
    const node = stack.pop() as SessionTreeNode;
    out.push(node);
    stack.push(...node.children);
  }
  return out;
}

test("children arrays hold exactly the children, sorted by timestamp, markers hidden", () => {
  const roots = sampleTree().getTree();
  assert.deepEqual(
    roots.map((node) => node.entry.id),
    ["root", "orphan"],
  );
  const byId = new Map(flatten(roots).map((node) => [node.entry.id, node]));
  assert.equal(byId.has("marker"), false);
  assert.deepEqual(
    byId.get("root")?.children.map((node) => node.entry.id),
    ["a", "b"],
  );
  assert.deepEqual(
    byId.get("c")?.children.map((node) => node.entry.id),
    ["late", "l"],
  );
  assert.deepEqual(
    byId.get("late")?.children.map((node) => node.entry.id),
    ["early"],
  );
  assert.equal(byId.get("a")?.label, "here");
  for (const node of byId.values()) {
    assert.equal(Object.keys(node.children).length, node.children.length, `no holes under ${node.entry.id}`);
    assert.deepEqual(Object.keys(node).sort(), ["children", "entry", "label", "labelTimestamp"]);
  }
});

test("a forest handed out shares no structure with the next one", () => {
  const tree = sampleTree();
  const first = tree.getTree();
  const reference = tree.getTree();
  for (const node of flatten(first)) {
    node.children.push(node);
    node.children.reverse();
    node.label = "changed";
  }
  first.length = 0;
  const again = tree.getTree();
  assert.deepEqual(
    again.map((n) => n.entry.id),
    reference.map((n) => n.entry.id),
  );
  const ids = (roots: SessionTreeNode[]) =>
    flatten(roots).map((node) => [node.entry.id, node.label, node.children.map((c) => c.entry.id)]);
  assert.deepEqual(ids(again), ids(reference));
});
