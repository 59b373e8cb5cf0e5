import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SessionEntry } from "../../src/core/entry.js";
import { type Layout, type LayoutState, layoutTree } from "../../src/viewer/browser/layout.js";
import { buildModel, type Model, nodeLook } from "../../src/viewer/browser/model.js";
import { bigSessionEntries } from "./support/sessions.js";

/** The page's own model and layout modules, run in Node: the code the page's bundle is built from. */
function modelOf(entries: unknown[], leafId: string | null, labels?: Record<string, string>): Model {
  return buildModel({ entries: entries as SessionEntry[], leafId, labels });
}

const folded = (): LayoutState => ({ collapsed: new Set(), expandedRuns: new Set(), foldRuns: true });
const unfolded = (): LayoutState => ({ collapsed: new Set(), expandedRuns: new Set(), foldRuns: false });

/** Structural promises of the layout, checked on every row. */
function checkLayout(model: Model, layout: Layout): void {
  const { rows } = layout;
  for (let r = 0; r < layout.count; r++) {
    const p = rows.parent[r] as number;
    assert.ok(p < r, `row ${r}: parent row ${p} comes first (preorder)`);
    if (p >= 0) {
      const col = rows.col[r] as number;
      const parentCol = rows.col[p] as number;
      assert.ok(
        col === parentCol || col === parentCol + 1,
        `row ${r}: a child is in its parent's column or the next`,
      );
    }
  }
  for (let v = 0; v < model.n; v++)
    assert.ok((layout.nodeRow[v] as number) >= 0, `node ${v} is drawn or folded into a row`);
}

describe("the viewer's tree layout", () => {
  it("lays out 10,000 entries in bounded time, every entry placed", () => {
    const big = bigSessionEntries(10_000);
    const model = modelOf(big.entries, big.leafId, {});
    const t0 = performance.now();
    const layout = layoutTree(model, folded());
    const ms = performance.now() - t0;
    checkLayout(model, layout);
    assert.ok(ms < 1500, `layout took ${ms.toFixed(1)} ms`);
    assert.ok(layout.count < model.n / 2, `${layout.count} rows for ${model.n} entries: runs are folded`);
    // The leaf's path is the straight line in column 0; abandoned branches sit one column right.
    for (let v = 0; v < model.n; v++) {
      const col = layout.rows.col[layout.nodeRow[v] as number];
      assert.equal(col, model.onPath[v] ? 0 : 1, `entry ${model.ids[v]}`);
    }
  });

  it("never folds prompts, labels, the leaf, compactions or branch summaries into a run", () => {
    const big = bigSessionEntries(3_000);
    const labels: Record<string, string> = { [big.entries[40]?.id as string]: "keep-me" };
    const model = modelOf(big.entries, big.leafId, labels);
    const layout = layoutTree(model, folded());
    for (let v = 0; v < model.n; v++) {
      const row = layout.nodeRow[v] as number;
      const kind = nodeLook(model, v);
      const mustShow = kind === "user" || v === model.leaf || labels[model.ids[v] as string] !== undefined;
      if (mustShow) assert.equal(layout.rows.run[row], 0, `${kind} ${model.ids[v]} has a row of its own`);
    }
    assert.ok(
      layout.rows.run.some((length) => length >= 3),
      "some run was folded",
    );
  });

  it("expands a folded run and collapses a subtree on request", () => {
    const big = bigSessionEntries(600);
    const model = modelOf(big.entries, big.leafId);
    const state = folded();
    const before = layoutTree(model, state);
    const runRow = before.rows.run.findIndex((length) => length > 0);
    state.expandedRuns.add(before.rows.node[runRow] as number);
    const expanded = layoutTree(model, state);
    assert.equal(expanded.count, before.count + (before.rows.run[runRow] as number) - 1);
    const root = model.roots[0] as number;
    state.collapsed.add(root);
    const collapsed = layoutTree(model, state);
    assert.equal(collapsed.count, 1);
    assert.equal(collapsed.rows.hidden[0], model.n - 1);
  });

  it("handles a 200,000-deep chain without recursion", () => {
    const entries = Array.from({ length: 200_000 }, (_, i) => ({
      type: "thinking_level_change",
      thinkingLevel: "low",
      id: `c${i}`,
      parentId: i === 0 ? null : `c${i - 1}`,
      timestamp: new Date(1_700_000_000_000 + i).toISOString(),
    }));
    const model = modelOf(entries, "c199999");
    assert.equal(layoutTree(model, unfolded()).count, 200_000);
    assert.ok(layoutTree(model, folded()).count <= 3);
  });

  it("draws a parent cycle and an orphan once each instead of hanging", () => {
    const t = (s: number) => new Date(1_700_000_000_000 + s * 1000).toISOString();
    const entries = [
      {
        type: "message",
        id: "r",
        parentId: null,
        timestamp: t(0),
        message: { role: "user", content: "root" },
      },
      {
        type: "message",
        id: "x",
        parentId: "y",
        timestamp: t(1),
        message: { role: "user", content: "cycle 1" },
      },
      {
        type: "message",
        id: "y",
        parentId: "x",
        timestamp: t(2),
        message: { role: "user", content: "cycle 2" },
      },
      {
        type: "message",
        id: "o",
        parentId: "missing",
        timestamp: t(3),
        message: { role: "user", content: "orphan" },
      },
    ];
    const model = modelOf(entries, "r");
    const layout = layoutTree(model, unfolded());
    assert.equal(layout.count, 4);
    checkLayout(model, layout);
    assert.deepEqual([...layout.rows.node].sort(), [0, 1, 2, 3]);
  });
});
