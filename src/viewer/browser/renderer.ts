/**
 * Draws a layout on a canvas. Only the rows inside the viewport are drawn (plus the few edges that
 * pass through it), so the cost of a frame does not depend on the session's size.
 */
import type { Layout } from "./layout.js";
import type { Model } from "./model.js";
import { paintRows, rowAtWorld } from "./painter.js";
import { installPointer } from "./pointer.js";
import { LEGEND_H, PAD, ROW_H, rowX, rowY } from "./row-style.js";
import { type Frame, hasScene, type Scene, type View, zoomAt } from "./view.js";

export interface Renderer {
  readonly view: View;
  setData(model: Model, layout: Layout, selected: number): void;
  setSelected(v: number): void;
  /** Draws again on the next frame (row texts arrived). */
  redraw(): void;
  resetView(): void;
  zoomAt(factor: number, cx: number, cy: number): void;
  /** Brings row r to the middle, without scrolling past the top or leaving the bottom empty. */
  center(r: number): void;
  /** Whether row r's mark is on the canvas, above the legend. */
  inView(r: number): boolean;
  /** Fits the whole tree's height. */
  fit(): void;
  /** Where row r's mark is, in page coordinates (tests click there). */
  clientPoint(r: number): { x: number; y: number };
}

export function createRenderer(
  canvas: HTMLCanvasElement,
  onClick: (row: number) => void,
  onDoubleClick: (row: number) => void,
  onFrame: (frame: Frame) => void = () => {},
): Renderer {
  const view: View = { model: null, layout: null, selected: -1, scale: 1, ox: 0, oy: 0, frame: null };
  const ctx = canvas.getContext("2d") as CanvasRenderingContext2D;
  let pending = false;
  const invalidate = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      draw(canvas, ctx, view);
      if (view.frame) onFrame(view.frame);
    });
  };
  const rowAt = (clientX: number, clientY: number): number => {
    if (!hasScene(view)) return -1;
    const rect = canvas.getBoundingClientRect();
    return rowAtWorld(
      view,
      (clientX - rect.left - view.ox) / view.scale,
      (clientY - rect.top - view.oy) / view.scale,
    );
  };
  installPointer(canvas, view, { invalidate, rowAt, onClick, onDoubleClick });
  window.addEventListener("resize", invalidate);
  new ResizeObserver(invalidate).observe(canvas);
  return {
    view,
    setData(model, layout, selected) {
      Object.assign(view, { model, layout, selected });
      invalidate();
    },
    setSelected(v) {
      view.selected = v;
      invalidate();
    },
    redraw: invalidate,
    resetView() {
      Object.assign(view, { scale: 1, ox: 0, oy: 0 });
      invalidate();
    },
    zoomAt(factor, cx, cy) {
      zoomAt(view, factor, cx, cy);
      invalidate();
    },
    center(r) {
      centerRow(view, sizeOf(canvas), r);
      invalidate();
    },
    inView(r) {
      const y = view.oy + rowY(r) * view.scale;
      return y >= 0 && y <= sizeOf(canvas).h - LEGEND_H;
    },
    fit() {
      const h = PAD * 2 + (view.layout?.count ?? 0) * ROW_H;
      Object.assign(view, { scale: Math.max(0.05, Math.min(1, sizeOf(canvas).h / h)), ox: 12, oy: 0 });
      invalidate();
    },
    clientPoint(r) {
      const rect = canvas.getBoundingClientRect();
      const x = view.layout ? rowX(view.layout, r) : 0;
      return { x: rect.left + view.ox + x * view.scale, y: rect.top + view.oy + rowY(r) * view.scale };
    },
  };
}

function sizeOf(canvas: HTMLCanvasElement): { w: number; h: number } {
  const rect = canvas.getBoundingClientRect();
  return { w: Math.max(1, rect.width), h: Math.max(1, rect.height) };
}

function centerRow(view: View, s: { w: number; h: number }, r: number): void {
  if (!view.layout) return;
  // LEGEND_H: the legend overlays the bottom of the canvas; the last row stays above it.
  const total = (PAD * 2 + view.layout.count * ROW_H) * view.scale + LEGEND_H;
  const oy = s.h / 2 - rowY(r) * view.scale;
  view.oy = total <= s.h ? 0 : Math.min(0, Math.max(s.h - total, oy));
  view.ox = Math.min(0, s.w / 3 - rowX(view.layout, r) * view.scale);
}

/** One frame: sizes the backing store to the device pixels, then paints the rows in view. */
function draw(canvas: HTMLCanvasElement, ctx: CanvasRenderingContext2D, view: View): void {
  const t0 = performance.now();
  const s = sizeOf(canvas);
  const dpr = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(s.w * dpr) || canvas.height !== Math.round(s.h * dpr)) {
    canvas.width = Math.round(s.w * dpr);
    canvas.height = Math.round(s.h * dpr);
  }
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, s.w, s.h);
  if (!hasScene(view)) return;
  ctx.setTransform(dpr * view.scale, 0, 0, dpr * view.scale, dpr * view.ox, dpr * view.oy);
  const top = -view.oy / view.scale;
  const bottom = (s.h - view.oy) / view.scale;
  const from = Math.max(0, Math.floor((top - PAD) / ROW_H) - 1);
  const to = Math.min(view.layout.count - 1, Math.ceil((bottom - PAD) / ROW_H) + 1);
  paintRows(ctx, view, from, to, s.w);
  const at = performance.now();
  view.frame = {
    from,
    to,
    drawn: Math.max(0, to - from + 1),
    ms: at - t0,
    at,
    pending: pendingTexts(view, from, to),
  };
}

/** Rows `from`..`to` drawn without their text (a large session's texts arrive a page at a time). */
function pendingTexts(view: Scene, from: number, to: number): number {
  const { rows } = view.layout;
  let pending = 0;
  for (let r = from; r <= to && r < view.layout.count; r++)
    if (rows.run[r] === 0 && view.model.texts[rows.node[r] as number] === undefined) pending++;
  return pending;
}
