import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { SessionEntry } from "../../src/core/entry.js";
import { SessionTree } from "../../src/core/tree.js";

// A damaged copy of an entry (a field's name hit, so the line still parses) is malformed and kept;
// it must not hide the intact copy of the same entry written again further on.

const T = "2026-01-01T00:00:00.000Z";
const root = {
  type: "message",
  id: "u",
  parentId: null,
  timestamp: T,
  message: { role: "user", content: "hi" },
};
const label = { type: "label", id: "l", parentId: "u", timestamp: T, targetId: "u", label: "start" };
const damagedLabel = { type: "label", id: "l", parentId: "u", timestamp: T, tarxetId: "u", label: "start" };

function load(...entries: unknown[]): SessionTree {
  const tree = new SessionTree();
  for (const [i, entry] of entries.entries()) tree.load(entry as SessionEntry, { line: i + 2 });
  return tree;
}

describe("a malformed entry and a well-formed copy of it", () => {
  test("the well-formed copy later wins, and what it sets applies", () => {
    const tree = load(root, damagedLabel, label);
    assert.deepEqual(tree.getStoredEntries().at(-1), label);
    assert.equal(tree.getLabel("u"), "start");
    assert.deepEqual(
      tree.getIssues().map((issue) => [issue.code, issue.severity, issue.line]),
      [["duplicate_conflict", "warning", 4]],
    );
  });

  test("a well-formed first copy stays: the malformed one after it is a conflict", () => {
    const tree = load(root, label, damagedLabel);
    assert.deepEqual(tree.getStoredEntries().at(-1), label);
    assert.deepEqual(
      tree.getIssues().map((issue) => [issue.code, issue.severity]),
      [["duplicate_conflict", "error"]],
    );
  });

  test("a copy under another parent or of another type does not take the place", () => {
    const elsewhere = { ...label, parentId: null };
    const tree = load(root, damagedLabel, elsewhere);
    assert.deepEqual(tree.getStoredEntries().at(-1), damagedLabel);
    assert.equal(tree.getLabel("u"), undefined, "a malformed label sets nothing");
    assert.deepEqual(
      tree.getIssues().map((issue) => issue.code),
      ["duplicate_conflict"],
    );
    const otherType = { type: "session_info", id: "l", parentId: "u", timestamp: T, name: "n" };
    const typed = load(root, damagedLabel, otherType);
    assert.deepEqual(typed.getStoredEntries().at(-1), damagedLabel);
    assert.equal(typed.getSessionName(), undefined, "the copy of another type sets nothing either");
    assert.deepEqual(
      typed.getIssues().map((issue) => [issue.code, issue.severity]),
      [["duplicate_conflict", "error"]],
    );
  });
});
