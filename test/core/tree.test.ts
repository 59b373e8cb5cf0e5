import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { projectContext } from "../../src/core/context.js";
import { LEAF_MARKER_TYPE, type SessionEntry } from "../../src/core/entry.js";
import { isSessionTreeError } from "../../src/core/errors.js";
import { SessionTree, type SessionTreeNode } from "../../src/core/tree.js";
import { entryMaker, messageMaker } from "../support/messages.js";

const { entry, user: message } = entryMaker();
const { user } = messageMaker();

function treeOf(entries: SessionEntry[]): SessionTree {
  const tree = new SessionTree();
  for (const entry of entries) tree.load(entry);
  return tree;
}

/** Every node of a forest, iteratively (a recursive walk would itself overflow on deep trees). */
function allNodes(roots: SessionTreeNode[]): { node: SessionTreeNode; depth: number }[] {
  const out: { node: SessionTreeNode; depth: number }[] = [];
  const stack = roots.map((node) => ({ node, depth: 1 }));
  while (stack.length > 0) {
    const item = stack.pop() as { node: SessionTreeNode; depth: number };
    out.push(item);
    for (const child of item.node.children) stack.push({ node: child, depth: item.depth + 1 });
  }
  return out;
}

const ids = (entries: { id: string }[]) => entries.map((e) => e.id);

describe("SessionTree", () => {
  test("a 200,000-deep chain: getTree, getBranch and the context work without overflowing the stack", () => {
    const tree = new SessionTree();
    const depth = 200_000;
    let parent: string | null = null;
    for (let i = 0; i < depth; i++) {
      const id = `e${i}`;
      // A bare literal, not the entry maker: 200,000 of them, and only the shape matters here.
      tree.load({
        type: "message",
        id,
        parentId: parent,
        timestamp: "2026-01-01T00:00:00.000Z",
        message: { role: "user", content: "x" },
      } as SessionEntry);
      parent = id;
    }
    const nodes = allNodes(tree.getTree());
    assert.equal(nodes.length, depth);
    assert.equal(
      nodes.reduce((max, n) => Math.max(max, n.depth), 0),
      depth,
    );
    const branch = tree.getBranch();
    assert.equal(branch.length, depth);
    assert.equal(branch[0]?.id, "e0");
    assert.equal(branch.at(-1)?.id, `e${depth - 1}`);
    assert.equal(projectContext(branch).messages.length, depth);
  });

  test("parent cycles are reported; getBranch, getTree and the context terminate", () => {
    const tree = treeOf([
      message("root", null),
      { ...message("a", "c") },
      { ...message("b", "a") },
      { ...message("c", "b") },
      { ...message("self", "self") },
    ]);
    const cycles = tree.getIssues().filter((i) => i.code === "parent_cycle");
    assert.equal(cycles.length, 2);
    for (const start of ["a", "b", "c", "self"]) {
      const branch = tree.getBranch(start);
      assert.ok(branch.length >= 1 && branch.length <= 3, `branch from ${start}`);
      assert.equal(new Set(ids(branch)).size, branch.length, "no entry twice");
      assert.equal(branch.at(-1)?.id, start);
      projectContext(branch);
    }
    const nodes = allNodes(tree.getTree());
    assert.deepEqual(ids(nodes.map((n) => n.node.entry)).sort(), ["a", "b", "c", "root", "self"]);
  });

  test("a self-parent alone is a parent cycle: reported, and walks end", () => {
    const tree = treeOf([message("r", null), message("me", "me")]);
    assert.deepEqual(
      tree.getIssues().map((i) => [i.code, i.entryId]),
      [["parent_cycle", "me"]],
    );
    assert.deepEqual(ids(tree.getBranch("me")), ["me"]);
    assert.deepEqual(ids(tree.getTree().map((n) => n.entry)), ["r", "me"]);
  });

  test("a dangling parent is reported and its entry becomes a root; a later arrival resolves it", () => {
    const tree = treeOf([message("a", null), message("orphan", "late")]);
    assert.deepEqual(
      tree.getIssues().map((i) => [i.code, i.entryId]),
      [["dangling_parent", "orphan"]],
    );
    assert.deepEqual(ids(tree.getTree().map((n) => n.entry)), ["a", "orphan"]);
    tree.load(message("late", "a"));
    assert.deepEqual(tree.getIssues(), []);
    assert.deepEqual(ids(tree.getBranch("orphan")), ["a", "late", "orphan"]);
  });

  test("duplicates: identical ones collapse, a conflicting one is reported and the first wins", () => {
    const tree = new SessionTree();
    const first = message("x", null, "original");
    assert.equal(tree.load(first, { line: 2, offset: 100 }), "added");
    assert.equal(tree.load(structuredClone(first), { line: 3, offset: 200 }), "duplicate");
    assert.equal(
      tree.load({ ...first, message: { role: "user", content: "changed" } } as SessionEntry, {
        line: 4,
        offset: 300,
      }),
      "conflict",
    );
    assert.equal(tree.getEntries().length, 1);
    assert.equal((tree.getEntry("x") as { message: { content: string } }).message.content, "original");
    assert.deepEqual(
      tree.getIssues().map((i) => [i.code, i.entryId, i.line, i.offset]),
      [
        ["duplicate_identical", "x", 3, 200],
        ["duplicate_conflict", "x", 4, 300],
      ],
    );
  });

  test("the leaf follows storage order; a leaf marker moves it to the marker's parent and stays hidden", () => {
    const marker = entry("custom", "m", "a", { customType: LEAF_MARKER_TYPE });
    const tree = treeOf([message("a", null), message("b", "a"), marker]);
    assert.equal(tree.getLeafId(), "a");
    assert.deepEqual(ids(tree.getEntries()), ["a", "b"]);
    assert.equal(tree.getEntry("m"), undefined);
    assert.deepEqual(ids(tree.getChildren("a")), ["b"]);
    assert.throws(
      () => tree.branch("m"),
      (e) => isSessionTreeError(e, "entry_not_found"),
    );
    // Another writer (pi) appending under the marker makes it ordinary history.
    tree.load(message("c", "m"));
    assert.deepEqual(ids(tree.getEntries()), ["a", "b", "m", "c"]);
    assert.deepEqual(ids(tree.getBranch()), ["a", "m", "c"]);
  });

  test("appends chain from the leaf; branch and resetLeaf move it; nothing is ever removed", () => {
    const tree = new SessionTree();
    const a = tree.append({ type: "message", message: user("a") });
    const b = tree.append({ type: "message", message: user("b") });
    tree.branch(a.id);
    const c = tree.append({ type: "message", message: user("c") });
    tree.resetLeaf();
    const d = tree.append({ type: "message", message: user("d") });
    assert.equal(b.parentId, a.id);
    assert.equal(c.parentId, a.id);
    assert.equal(d.parentId, null);
    assert.deepEqual(ids(tree.getChildren(a.id)), [b.id, c.id]);
    assert.deepEqual(ids(tree.getEntries()), [a.id, b.id, c.id, d.id]);
    assert.deepEqual(ids(tree.getBranch(c.id)), [a.id, c.id]);
    assert.match(a.id, /^[0-9a-f]{8}$/);
    assert.throws(
      () => tree.branch("missing"),
      (e) => isSessionTreeError(e, "entry_not_found"),
    );
  });

  test("getTree orders children by timestamp, not by arrival", () => {
    const late = { ...message("late", "r"), timestamp: "2026-03-01T00:00:00.000Z" };
    const early = { ...message("early", "r"), timestamp: "2026-02-01T00:00:00.000Z" };
    const tree = treeOf([message("r", null), late, early]);
    assert.deepEqual(ids(tree.getTree()[0]?.children.map((n) => n.entry) ?? []), ["early", "late"]);
    assert.deepEqual(ids(tree.getChildren("r")), ["late", "early"], "getChildren keeps storage order");
  });
});
