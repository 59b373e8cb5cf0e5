import assert from "node:assert/strict";
import { test } from "node:test";
import { LEAF_MARKER_TYPE, type SessionEntry } from "../../src/core/entry.js";
import { SessionTree } from "../../src/core/tree.js";

/**
 * A whole read finds most parents as the entry stored just before (a chain, a branch being
 * written) without a lookup, and keeps parents and children in typed arrays grown by doubling.
 * Checked here against a plain walk by id, on sessions long enough to grow the arrays many times,
 * mixing entries that follow their parent with every other case: a duplicate line between a parent
 * and its child, a child under a hidden leaf marker, a parent stored later, a parent that never
 * comes, a self-parent.
 */

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const stamp = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i % 3600)).toISOString();

function entry(id: string, parentId: string | null, i: number, marker = false): SessionEntry {
  const base = { id, parentId, timestamp: stamp(i) };
  return (
    marker
      ? { ...base, type: "custom", customType: LEAF_MARKER_TYPE }
      : { ...base, type: "thinking_level_change", thinkingLevel: "low" }
  ) as SessionEntry;
}

function session(seed: number, count: number): SessionEntry[] {
  const next = random(seed);
  const out: SessionEntry[] = [];
  let previous: string | null = null;
  for (let i = 0; i < count; i++) {
    const id = `n${i}`;
    const r = next();
    let parentId: string | null = previous;
    if (r < 0.05 && out.length > 0) parentId = (out[Math.floor(next() * out.length)] as SessionEntry).id;
    else if (r < 0.06)
      parentId = `n${i + 1 + Math.floor(next() * 5)}`; // stored before its parent
    else if (r < 0.065) parentId = `gone${i}`;
    else if (r < 0.067) parentId = id;
    else if (r < 0.07) parentId = null;
    out.push(entry(id, parentId, i, r > 0.97));
    if (next() < 0.03) out.push({ ...(out[out.length - 1] as SessionEntry) }); // a duplicate line
    previous = id;
  }
  return out;
}

/** The path by definition: follow parent ids from the first stored entry of each id, stop at a repeat. */
function expectedBranch(entries: SessionEntry[], fromId: string, tree: SessionTree): string[] {
  const byId = new Map<string, SessionEntry>();
  for (const e of entries) if (!byId.has(e.id)) byId.set(e.id, e);
  const path: string[] = [];
  const seen = new Set<string>();
  for (let at = byId.get(fromId); at && !seen.has(at.id); ) {
    seen.add(at.id);
    path.push(at.id);
    // A cycle is cut where the tree says (its issues name the entry treated as a root).
    if (at.parentId === null || cutAt(tree, at.id)) break;
    at = byId.get(at.parentId);
  }
  return path.reverse();
}

function cutAt(tree: SessionTree, id: string): boolean {
  return tree.getIssues().some((issue) => issue.code === "parent_cycle" && issue.entryId === id);
}

test("paths and children after a long read match a walk by id", () => {
  for (const [seed, count] of [
    [1, 17],
    [2, 300],
    [3, 2_500],
  ] as const) {
    const entries = session(seed, count);
    const tree = new SessionTree();
    for (const [i, e] of entries.entries()) tree.loadAt(e, i + 2, i * 100);
    const ids = [...new Set(entries.map((e) => e.id))];
    for (const id of ids.filter((_, i) => i % 7 === 0 || i === ids.length - 1)) {
      assert.deepEqual(
        tree.getBranch(id).map((e) => e.id),
        expectedBranch(entries, id, tree),
        `seed ${seed}, path to ${id}`,
      );
    }
    const firstOf = new Map<string, SessionEntry>();
    for (const e of entries) if (!firstOf.has(e.id)) firstOf.set(e.id, e);
    // Shown children by parent (a marker is linked when it is shown, so compare as sets).
    const shown = new Map<string | null, string[]>();
    for (const e of firstOf.values())
      if (tree.getEntry(e.id) !== undefined) shown.set(e.parentId, [...(shown.get(e.parentId) ?? []), e.id]);
    for (const id of ids) {
      const children = tree.getChildren(id).map((e) => e.id);
      assert.deepEqual(children.sort(), (shown.get(id) ?? []).sort(), `seed ${seed}, children of ${id}`);
    }
  }
});

test("a child stored right after a hidden leaf marker shows the marker", () => {
  const tree = new SessionTree();
  tree.loadAt(entry("a", null, 0), 2, 0);
  tree.loadAt(entry("b", "a", 1), 3, 10);
  tree.loadAt(entry("m", "b", 2, true), 4, 20);
  assert.equal(tree.getLeafId(), "b");
  assert.deepEqual(
    tree.getEntries().map((e) => e.id),
    ["a", "b"],
  );
  tree.loadAt(entry("c", "m", 3), 5, 30);
  assert.deepEqual(
    tree.getBranch().map((e) => e.id),
    ["a", "b", "m", "c"],
  );
  assert.deepEqual(
    tree.getChildren("b").map((e) => e.id),
    ["m"],
  );
});
