import { type RowStyle, rowStyle } from "./row-style.js";
import type { Frame } from "./view.js";
import type { Viewer } from "./viewer.js";

/** What the browser tests read (test/viewer/support/page-helpers.ts): the facts the canvas was drawn from. */
export interface ViewerHooks {
  ready: boolean;
  sessionKey(): string | null;
  selectedId(): string | null;
  rowOf(id: string): number;
  reveal(id: string): number;
  center(id: string): number;
  clientPoint(id: string): { x: number; y: number } | null;
  style(id: string): RowStyle | null;
  rowCount(): number;
  /** The entry a row shows (a run's first), null past the last row. */
  idAtRow(row: number): string | null;
  frame(): Frame | null;
  viewport(): { scale: number; ox: number; oy: number };
  timings(): Record<string, number | undefined>;
  open(key: string): Promise<void>;
}

declare global {
  interface Window {
    __viewer: ViewerHooks;
  }
}

export function installTestHooks(viewer: Viewer, open: (key: string) => Promise<void>): ViewerHooks {
  const node = (id: string) => viewer.nodeOf(id);
  const rowOf = (id: string) => {
    const v = node(id);
    return v === undefined || !viewer.shown ? -1 : (viewer.shown.layout.nodeRow[v] as number);
  };
  const reveal = (id: string) => {
    const v = node(id);
    return v === undefined ? -1 : viewer.reveal(v);
  };
  const view = viewer.renderer.view;
  const hooks: ViewerHooks = {
    ready: false,
    sessionKey: () => viewer.shown?.shape.key ?? null,
    selectedId: () => (viewer.selected >= 0 ? viewer.entryId(viewer.selected) : null),
    rowOf,
    reveal,
    center: (id) => {
      const row = reveal(id);
      if (row >= 0) viewer.renderer.center(row);
      return row;
    },
    clientPoint: (id) => {
      const row = rowOf(id);
      return row < 0 ? null : viewer.renderer.clientPoint(row);
    },
    style: (id) => {
      const row = rowOf(id);
      const shown = viewer.shown;
      return row < 0 || !shown ? null : rowStyle(shown.model, shown.layout, view.selected, row);
    },
    rowCount: () => viewer.shown?.layout.count ?? 0,
    idAtRow: (row) => {
      const shown = viewer.shown;
      if (!shown || row < 0 || row >= shown.layout.count) return null;
      return viewer.entryId(shown.layout.rows.node[row] as number);
    },
    frame: () => view.frame,
    viewport: () => ({ scale: view.scale, ox: view.ox, oy: view.oy }),
    timings: () => viewer.timings,
    open,
  };
  window.__viewer = hooks;
  return hooks;
}
