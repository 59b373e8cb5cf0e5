import { type View, zoomAt } from "./view.js";

export interface PointerHandlers {
  /** Redraw on the next animation frame. */
  invalidate(): void;
  /** The row under a page point, -1 for none. */
  rowAt(clientX: number, clientY: number): number;
  onClick(row: number): void;
  onDoubleClick(row: number): void;
}

/** Drag pans, a click without a drag selects, the wheel scrolls, ctrl/cmd + wheel zooms. */
export function installPointer(canvas: HTMLCanvasElement, view: View, on: PointerHandlers): void {
  let drag: { x: number; y: number; ox: number; oy: number; moved: boolean } | null = null;
  canvas.addEventListener("pointerdown", (ev) => {
    drag = { x: ev.clientX, y: ev.clientY, ox: view.ox, oy: view.oy, moved: false };
    canvas.setPointerCapture(ev.pointerId);
  });
  canvas.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    const dx = ev.clientX - drag.x;
    const dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    if (!drag.moved) return;
    view.ox = drag.ox + dx;
    view.oy = drag.oy + dy;
    canvas.style.cursor = "grabbing";
    on.invalidate();
  });
  canvas.addEventListener("pointerup", (ev) => {
    const wasClick = drag !== null && !drag.moved;
    drag = null;
    canvas.style.cursor = "";
    if (wasClick) on.onClick(on.rowAt(ev.clientX, ev.clientY));
  });
  canvas.addEventListener("dblclick", (ev) => on.onDoubleClick(on.rowAt(ev.clientX, ev.clientY)));
  canvas.addEventListener("wheel", (ev) => onWheel(canvas, view, ev, on.invalidate), { passive: false });
}

function onWheel(canvas: HTMLCanvasElement, view: View, ev: WheelEvent, invalidate: () => void): void {
  ev.preventDefault();
  const rect = canvas.getBoundingClientRect();
  if (ev.ctrlKey || ev.metaKey) {
    zoomAt(view, Math.exp(-ev.deltaY * 0.002), ev.clientX - rect.left, ev.clientY - rect.top);
  } else {
    view.ox -= ev.shiftKey ? ev.deltaY : ev.deltaX;
    view.oy -= ev.shiftKey ? 0 : ev.deltaY;
  }
  invalidate();
}
