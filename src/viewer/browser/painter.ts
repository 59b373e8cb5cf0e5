import { COL_W, COLORS, PAD, ROW_H, type RowStyle, rowStyle, rowX, rowY } from "./row-style.js";
import type { Scene } from "./view.js";

/** Zoomed out below this, rows are drawn as marks only. */
const DETAIL_SCALE = 0.45;
const FONT = "12px system-ui, sans-serif";

/**
 * Draws rows from..to of a scene, in world coordinates (the caller set the transform). Only those
 * rows are drawn, plus the few edges passing through them, so a frame costs the same at any size.
 */
export function paintRows(
  ctx: CanvasRenderingContext2D,
  scene: Scene,
  from: number,
  to: number,
  width: number,
) {
  // Nothing in view (an empty session, scrolled past the end): the row arrays past `count` hold
  // nothing meaningful.
  if (from > to || from >= scene.layout.count) return;
  const p = new Painter(ctx, scene);
  for (let r = from; r <= to; r++) p.band(r, width);
  p.passingEdges(from, to);
  for (let r = from; r <= to; r++) {
    const parent = scene.layout.rows.parent[r] as number;
    if (parent >= 0) p.edge(parent, r);
  }
  const detailed = scene.scale >= DETAIL_SCALE;
  for (let r = from; r <= to; r++) p.row(r, detailed);
}

class Painter {
  constructor(
    private readonly ctx: CanvasRenderingContext2D,
    private readonly scene: Scene,
  ) {}

  private style(r: number): RowStyle {
    return rowStyle(this.scene.model, this.scene.layout, this.scene.selected, r);
  }

  /** The tinted background of selected, compaction and branch-summary rows. */
  band(r: number, width: number): void {
    const st = this.style(r);
    const fill = st.selected
      ? "rgba(37,99,235,0.16)"
      : st.kind === "compaction"
        ? "rgba(234,88,12,0.10)"
        : st.kind === "branchSummary"
          ? "rgba(8,145,178,0.10)"
          : null;
    if (!fill) return;
    const { scale, ox } = this.scene;
    this.ctx.fillStyle = fill;
    this.ctx.fillRect(-ox / scale, PAD + r * ROW_H, width / scale, ROW_H);
  }

  /** Edges from rows above the viewport to rows below it: they run through every ancestor's column. */
  passingEdges(from: number, to: number): void {
    const rows = this.scene.layout.rows;
    for (let a = rows.parent[from] as number; a >= 0; a = rows.parent[a] as number) {
      const last = rows.lastChild[a] as number;
      if (last > to) this.edge(a, last);
    }
  }

  edge(p: number, r: number): void {
    const { ctx, scene } = this;
    const layout = scene.layout;
    const onPath = scene.model.onPath[layout.rows.node[r] as number] === 1;
    const px = rowX(layout, p);
    const py = rowY(p);
    const cx = rowX(layout, r);
    const cy = rowY(r);
    ctx.beginPath();
    ctx.moveTo(px, py);
    if (cx === px) ctx.lineTo(cx, cy);
    else {
      ctx.lineTo(px, cy - ROW_H / 2);
      ctx.quadraticCurveTo(px, cy, cx, cy);
    }
    ctx.setLineDash(onPath ? [] : [4, 3]);
    ctx.strokeStyle = onPath ? "#334155" : "#b6bfcc";
    ctx.lineWidth = Math.max(onPath ? 2 : 1.2, 1 / scene.scale);
    ctx.stroke();
    ctx.setLineDash([]);
  }

  row(r: number, detailed: boolean): void {
    const st = this.style(r);
    const x = rowX(this.scene.layout, r);
    const y = rowY(r);
    this.ctx.globalAlpha = st.dimmed ? 0.35 : 1;
    if (detailed) {
      this.mark(st, x, y);
      this.text(st, x + 14, y);
    } else this.overviewMark(st, x, y);
    this.ctx.globalAlpha = 1;
    if (detailed && st.selected) this.selection(st, x, y);
  }

  /** Zoomed far out: marks keep a visible size on screen, text is left out. */
  private overviewMark(st: RowStyle, x: number, y: number): void {
    const { ctx } = this;
    const scale = this.scene.scale;
    const k = Math.max(5, 2.5 / scale);
    ctx.fillStyle = COLORS[st.kind];
    ctx.fillRect(x - k, y - k, 2 * k, 2 * k);
    if (st.leaf || st.selected) {
      ctx.strokeStyle = st.leaf ? "#f59e0b" : "#1d4ed8";
      ctx.lineWidth = 3 / scale;
      ctx.strokeRect(x - 3 * k, y - 3 * k, 6 * k, 6 * k);
    }
  }

  private mark(st: RowStyle, x: number, y: number): void {
    const { ctx } = this;
    ctx.fillStyle = COLORS[st.kind];
    ctx.beginPath();
    if (st.kind === "compaction") ctx.rect(x - 6, y - 6, 12, 12);
    else if (st.kind === "branchSummary" || st.kind === "meta") {
      const k = st.kind === "meta" ? 4.5 : 7;
      ctx.moveTo(x, y - k);
      ctx.lineTo(x + k, y);
      ctx.lineTo(x, y + k);
      ctx.lineTo(x - k, y);
      ctx.closePath();
    } else if (st.run) ctx.rect(x - 3, y - 8, 6, 16);
    else ctx.arc(x, y, st.kind === "user" ? 6 : 5, 0, Math.PI * 2);
    ctx.fill();
    if (st.leaf) {
      ctx.beginPath();
      ctx.arc(x, y, 10, 0, Math.PI * 2);
      ctx.strokeStyle = "#f59e0b";
      ctx.lineWidth = 3;
      ctx.stroke();
    }
  }

  /** At full strength even on a faded row: the selection must always be easy to find. */
  private selection(st: RowStyle, x: number, y: number): void {
    const { ctx } = this;
    ctx.beginPath();
    ctx.arc(x, y, st.leaf ? 13 : 9, 0, Math.PI * 2);
    ctx.strokeStyle = "#1d4ed8";
    ctx.lineWidth = 2;
    ctx.stroke();
  }

  private text(st: RowStyle, x: number, y: number): void {
    const { ctx } = this;
    ctx.font = FONT;
    ctx.textBaseline = "middle";
    let at = x;
    if (st.leaf) at = this.pill(at, y, "LEAF", "#f59e0b", "#fff");
    if (st.label) at = this.pill(at, y, st.label, "#fde68a", "#713f12");
    if (st.kind === "compaction") at = this.pill(at, y, "COMPACTION", "#ea580c", "#fff");
    if (st.kind === "branchSummary") at = this.pill(at, y, "BRANCH SUMMARY", "#0891b2", "#fff");
    ctx.fillStyle = st.run ? "#475569" : st.kind === "error" ? "#b91c1c" : "#0f172a";
    ctx.font = (st.kind === "user" ? "600 " : st.run ? "italic " : "") + FONT;
    const text = st.kind === "user" ? `user: ${st.text}` : st.text;
    ctx.fillText(text.length > 160 ? `${text.slice(0, 159)}…` : text, at, y);
    if (st.hidden) {
      const end = at + Math.min(ctx.measureText(text).width, 1000) + 8;
      this.pill(end, y, `+${st.hidden} hidden`, "#e2e8f0", "#334155");
    }
  }

  /** A rounded tag; returns where the next thing on the row starts. */
  private pill(x: number, y: number, text: string, bg: string, fg: string): number {
    const { ctx } = this;
    ctx.font = "600 11px system-ui, sans-serif";
    const w = ctx.measureText(text).width + 10;
    ctx.fillStyle = bg;
    ctx.beginPath();
    ctx.roundRect(x, y - 8, w, 16, 8);
    ctx.fill();
    ctx.fillStyle = fg;
    ctx.fillText(text, x + 5, y + 0.5);
    ctx.font = FONT;
    return x + w + 6;
  }
}

/** The row under a world point, -1 for none (left of a row's mark is nothing). */
export function rowAtWorld(scene: Scene, wx: number, wy: number): number {
  const r = Math.floor((wy - PAD) / ROW_H);
  if (r < 0 || r >= scene.layout.count || wx < rowX(scene.layout, r) - COL_W / 2) return -1;
  return r;
}
