import assert from "node:assert/strict";
import { test } from "node:test";
import { LEAF_MARKER_TYPE, type SessionEntry } from "../../src/core/entry.js";
import { SessionTree, type SessionTreeNode } from "../../src/core/tree.js";

/**
 * The tree keeps children as linked lists over positions and builds getTree from positions
 * (tree-children.ts, tree-forest.ts). Checked here against the plain definitions (children: the
 * visible entries naming the parent, in storage order; the forest: nodes linked by parent id,
 * children sorted by timestamp) on random sessions with every awkward shape: children stored
 * before their parent, parents that never come, self-parents and cycles, duplicates, leaf
 * markers (hidden, and shown once something hangs under one) and labels.
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

function randomEntries(seed: number, count: number): SessionEntry[] {
  const next = random(seed);
  const ids = Array.from({ length: count }, (_, i) => `e${i}`);
  const out: SessionEntry[] = [];
  for (let i = 0; i < count; i++) {
    const r = next();
    // Mostly an earlier entry; sometimes a later one (stored before its parent), a missing one, itself.
    let parentId: string | null = i === 0 || r < 0.05 ? null : (ids[Math.floor(next() * i)] as string);
    if (r > 0.9) parentId = ids[Math.floor(next() * count)] as string;
    else if (r > 0.87) parentId = `missing${Math.floor(next() * 3)}`;
    else if (r > 0.86) parentId = ids[i] as string;
    const timestamp = new Date(Date.UTC(2026, 0, 1, 0, 0, Math.floor(next() * 600))).toISOString();
    const base = { id: ids[i] as string, parentId, timestamp };
    const kind = next();
    if (kind < 0.08) out.push({ ...base, type: "custom", customType: LEAF_MARKER_TYPE } as SessionEntry);
    else if (kind < 0.12)
      out.push({
        ...base,
        type: "label",
        targetId: ids[Math.floor(next() * count)],
        label: `l${i}`,
      } as SessionEntry);
    else out.push({ ...base, type: "thinking_level_change", thinkingLevel: "low" } as SessionEntry);
    if (next() < 0.02) out.push({ ...(out[out.length - 1] as SessionEntry) }); // a duplicate line
  }
  return out;
}

/**
 * Children as a map of lists by parent id, filled in storage order (the tree's representation
 * before the linked lists): the first of a duplicate id counts; a leaf marker joins its parent's
 * list only when something is stored under it.
 */
function expectedChildren(entries: SessionEntry[]): Map<string | null, string[]> {
  const lists = new Map<string | null, string[]>();
  const seen = new Set<string>();
  const hidden = new Set<string>();
  const link = (entry: SessionEntry) => {
    const list = lists.get(entry.parentId) ?? [];
    list.push(entry.id);
    lists.set(entry.parentId, list);
  };
  const byId = new Map<string, SessionEntry>();
  for (const entry of entries) {
    if (seen.has(entry.id)) continue;
    seen.add(entry.id);
    byId.set(entry.id, entry);
    const marker =
      entry.type === "custom" && (entry as { customType?: string }).customType === LEAF_MARKER_TYPE;
    if (marker) hidden.add(entry.id);
    else link(entry);
    if (entry.parentId !== null && hidden.has(entry.parentId)) {
      hidden.delete(entry.parentId);
      link(byId.get(entry.parentId) as SessionEntry);
    }
  }
  return lists;
}

function shape(nodes: SessionTreeNode[]): unknown[] {
  return nodes.map((n) => [n.entry.id, n.label ?? null, shape(n.children)]);
}

/** getTree by definition, with the same cycle cuts the tree found (parents it shows as roots). */
function expectedForest(tree: SessionTree): unknown[] {
  const entries = tree.getEntries();
  const nodes = new Map<string, SessionTreeNode>();
  for (const entry of entries) nodes.set(entry.id, { entry, children: [], label: tree.getLabel(entry.id) });
  const branchOf = (id: string) => tree.getBranch(id);
  const roots: SessionTreeNode[] = [];
  for (const entry of entries) {
    const node = nodes.get(entry.id) as SessionTreeNode;
    const path = branchOf(entry.id);
    // The entry's parent in the tree is the one before it on its path; a root has none.
    const parent = path.length > 1 ? nodes.get((path[path.length - 2] as SessionEntry).id) : undefined;
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  for (const node of nodes.values())
    node.children.sort((a, b) => Date.parse(a.entry.timestamp) - Date.parse(b.entry.timestamp));
  return shape(roots);
}

test("getChildren and getTree match their definitions on random sessions", () => {
  for (let seed = 1; seed <= 60; seed++) {
    const entries = randomEntries(seed, 40 + seed);
    const tree = new SessionTree();
    for (const entry of entries) tree.load(entry);
    const lists = expectedChildren(entries);
    for (const parent of [null, ...entries.map((e) => e.id), "missing0", "missing1"]) {
      assert.deepEqual(
        tree.getChildren(parent as string).map((e) => e.id),
        lists.get(parent) ?? [],
        `seed ${seed}, children of ${parent}`,
      );
    }
    assert.deepEqual(shape(tree.getTree()), expectedForest(tree), `seed ${seed}, getTree`);
  }
});

test("children stored before their parent are its first children once it arrives", () => {
  const at = (id: string, parentId: string | null, second: number) =>
    ({
      type: "thinking_level_change",
      thinkingLevel: "low",
      id,
      parentId,
      timestamp: `2026-01-01T00:00:0${second}.000Z`,
    }) as SessionEntry;
  const tree = new SessionTree();
  tree.load(at("early1", "p", 1));
  tree.load(at("early2", "p", 2));
  assert.deepEqual(
    tree.getChildren("p").map((e) => e.id),
    ["early1", "early2"],
  );
  tree.load(at("p", null, 0));
  tree.load(at("late", "p", 3));
  assert.deepEqual(
    tree.getChildren("p").map((e) => e.id),
    ["early1", "early2", "late"],
  );
  assert.deepEqual(shape(tree.getTree()), [
    [
      "p",
      null,
      [
        ["early1", null, []],
        ["early2", null, []],
        ["late", null, []],
      ],
    ],
  ]);
});
