import type { Layout } from "./layout.js";
import type { Model } from "./model.js";

/** What the last frame drew, for the tests and the large-session timings. */
export interface Frame {
  from: number;
  to: number;
  drawn: number;
  ms: number;
  /** When it was drawn, since the page's time origin. */
  at: number;
  /** Rows drawn with their text still on its way ("…"). */
  pending: number;
}

/** The canvas's state: what it shows and where (world → screen: scale, then offset in CSS pixels). */
export interface View {
  model: Model | null;
  layout: Layout | null;
  selected: number;
  scale: number;
  ox: number;
  oy: number;
  frame: Frame | null;
}

/** A view with something to draw. */
export type Scene = View & { model: Model; layout: Layout };

export function hasScene(view: View): view is Scene {
  return view.model !== null && view.layout !== null;
}

/** Zooms by `factor` keeping the point (cx, cy) of the canvas where it is. */
export function zoomAt(view: View, factor: number, cx: number, cy: number): void {
  const next = Math.max(0.05, Math.min(3, view.scale * factor));
  view.ox = cx - (cx - view.ox) * (next / view.scale);
  view.oy = cy - (cy - view.oy) * (next / view.scale);
  view.scale = next;
}
