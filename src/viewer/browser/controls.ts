import { byId } from "./dom.js";
import type { Viewer } from "./viewer.js";

/** Keys and header buttons: ↑↓ (j/k) rows, ←→ fold, l leaf, f fit, +/- zoom. */
export function installControls(viewer: Viewer): void {
  const zoom = (factor: number) => {
    const rect = byId("tree").getBoundingClientRect();
    viewer.renderer.zoomAt(factor, rect.width / 2, rect.height / 2);
  };
  const gotoLeaf = () => {
    const leaf = viewer.shown?.model.leaf ?? -1;
    if (leaf >= 0) viewer.select(leaf, true);
  };
  /** ← folds the selected subtree, → unfolds it. */
  const setFolded = (folded: boolean) => {
    const collapsed = viewer.shown?.state.collapsed.has(viewer.selected) ?? false;
    if (collapsed !== folded) viewer.toggleCollapse(viewer.selected);
  };
  const keys: Record<string, () => void> = {
    ArrowDown: () => viewer.moveSelection(1),
    j: () => viewer.moveSelection(1),
    ArrowUp: () => viewer.moveSelection(-1),
    k: () => viewer.moveSelection(-1),
    ArrowLeft: () => setFolded(true),
    ArrowRight: () => setFolded(false),
    l: gotoLeaf,
    f: () => viewer.renderer.fit(),
    "+": () => zoom(1.25),
    "-": () => zoom(0.8),
  };
  document.addEventListener("keydown", (ev) => {
    const action = Object.hasOwn(keys, ev.key) ? keys[ev.key] : undefined;
    if (!viewer.shown || (ev.target as HTMLElement | null)?.tagName === "INPUT" || !action) return;
    ev.preventDefault();
    action();
  });
  byId("zoom-in").addEventListener("click", () => zoom(1.25));
  byId("zoom-out").addEventListener("click", () => zoom(0.8));
  byId("fit").addEventListener("click", () => viewer.renderer.fit());
  byId("goto-leaf").addEventListener("click", gotoLeaf);
  byId("fold-runs").addEventListener("change", () => {
    const shown = viewer.shown;
    if (!shown) return;
    shown.state.foldRuns = byId<HTMLInputElement>("fold-runs").checked;
    shown.state.expandedRuns.clear();
    viewer.relayout();
    if (viewer.selected >= 0) viewer.select(viewer.selected, true);
  });
}
