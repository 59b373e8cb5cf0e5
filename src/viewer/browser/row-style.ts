import type { Look } from "./entry-line.js";
import { type Layout, runText } from "./layout.js";
import { labelOf, type Model, nodeLook, nodeText } from "./model.js";

/** Row geometry in world units (before zoom); LEGEND_H is the legend overlaying the canvas's bottom. */
export const ROW_H = 24;
export const COL_W = 18;
export const PAD = 20;
export const LEGEND_H = 44;

/** Mark colours; the stylesheet's `kind-*` classes use the same ones for the panel and legend. */
export const COLORS: { readonly [L in Look | "run"]: string } = {
  user: "#2563eb",
  assistant: "#16a34a",
  tool: "#64748b",
  error: "#dc2626",
  meta: "#9333ea",
  compaction: "#ea580c",
  branchSummary: "#0891b2",
  custom: "#a8a29e",
  customMessage: "#c026d3",
  label: "#ca8a04",
  other: "#78716c",
  run: "#64748b",
};

export function rowX(layout: Layout, r: number): number {
  return PAD + (layout.rows.col[r] as number) * COL_W;
}

export function rowY(r: number): number {
  return PAD + r * ROW_H + ROW_H / 2;
}

/** How a row is drawn. The browser tests read the same answer the canvas used. */
export interface RowStyle {
  id: string;
  kind: Look | "run";
  /** 0, or how many entries the folded run holds. */
  run: number;
  text: string;
  onPath: boolean;
  dimmed: boolean;
  leaf: boolean;
  label: string | undefined;
  selected: boolean;
  hidden: number;
  marked: boolean;
}

export function rowStyle(model: Model, layout: Layout, selected: number, r: number): RowStyle {
  const v = layout.rows.node[r] as number;
  const run = layout.rows.run[r] as number;
  const kind = run ? "run" : nodeLook(model, v);
  return {
    id: model.ids[v] as string,
    kind,
    run,
    text: run ? runText(model, v, run) : nodeText(model, v),
    onPath: model.onPath[v] === 1,
    dimmed: model.onPath[v] !== 1,
    leaf: !run && v === model.leaf,
    label: run ? undefined : labelOf(model, v),
    selected: !run && v === selected,
    hidden: layout.rows.hidden[r] as number,
    marked: kind === "compaction" || kind === "branchSummary",
  };
}
