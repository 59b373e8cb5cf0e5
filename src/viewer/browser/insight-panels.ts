/**
 * The panel's stats and branch diff, one codebase for the local viewer, the service and the export:
 * the answers come through the page's data (data.ts), computed where the session's bodies are.
 *
 * - *stats* shows or hides the open session's stats (stats-panel.ts).
 * - *diff with leaf* compares the selected entry's branch with the leaf's; *pin for diff* keeps
 *   the selected entry as the other side instead (*diff with pinned*), until unpinned or another
 *   session is opened (diff-panel.ts).
 */
import type { SessionShape } from "../session-shape.js";
import type { ViewerData } from "./data.js";
import { renderDiff } from "./diff-panel.js";
import { byId, clear, el } from "./dom.js";
import { diffWithLabel, insightsBox } from "./insight-dom.js";
import { renderStats } from "./stats-panel.js";
import type { Viewer } from "./viewer.js";

/** What the panels ask of the page's data. */
export type InsightData = Pick<ViewerData, "stats" | "diff">;

export function installInsights(viewer: Viewer, data: InsightData): void {
  const ui = insightsBox();
  const panel = byId("panel");
  panel.insertBefore(ui.box, panel.querySelector("h3"));
  let key: string | null = null;
  let pinned: string | null = null;
  /** The diff shown, to show again on reload; null when the diff panel is closed. */
  let shownDiff: { a: string; b: string } | null = null;
  /** Bumped by every request: only the latest one's answer is shown in its box. */
  const tokens = { stats: 0, diff: 0 };
  const onJump = (id: string) => viewer.jumpTo(id);

  const load = <T>(
    which: "stats" | "diff",
    ask: Promise<T>,
    render: (box: HTMLElement, answer: T) => void,
    /** Asked for by a button above (not a reload): the answer is brought into the panel's view. */
    asked: boolean,
  ) => {
    const box = which === "stats" ? ui.stats : ui.diff;
    const token = ++tokens[which];
    setShown(box, true);
    box.setAttribute("aria-busy", "true");
    clear(box);
    box.appendChild(el("div", "muted", which === "stats" ? "Counting…" : "Comparing…"));
    ask.then(
      (answer) => {
        if (token !== tokens[which]) return;
        render(box, answer);
        box.setAttribute("aria-busy", "false");
        if (asked) box.parentElement?.scrollIntoView({ block: "nearest" });
      },
      (err: Error) => {
        if (token !== tokens[which]) return;
        clear(box);
        box.appendChild(
          el("div", "warning", `Could not ${which === "stats" ? "count" : "compare"}: ${err.message}`),
        );
        box.setAttribute("aria-busy", "false");
      },
    );
  };
  const showStats = (k: string, asked: boolean) =>
    load("stats", data.stats(k), (box, s) => renderStats(box, s, onJump), asked);
  const showDiff = (k: string, a: string, b: string, asked: boolean) => {
    shownDiff = { a, b };
    const cwd = viewer.shown?.shape.header.cwd ?? "";
    load("diff", data.diff(k, a, b), (box, d) => renderDiff(box, d, cwd, onJump), asked);
  };
  const close = (which: "stats" | "diff") => {
    tokens[which]++;
    const box = which === "stats" ? ui.stats : ui.diff;
    setShown(box, false);
    clear(box);
    if (which === "diff") shownDiff = null;
  };
  const refreshButtons = () => {
    const selected = viewer.selected >= 0 ? viewer.entryId(viewer.selected) : null;
    const leaf =
      viewer.shown && viewer.shown.model.leaf >= 0 ? viewer.entryId(viewer.shown.model.leaf) : null;
    ui.diffWith.textContent = diffWithLabel(pinned);
    ui.diffWith.disabled = selected === null || (pinned ?? leaf) === null;
    ui.pin.disabled = selected === null;
    ui.pin.textContent = pinned !== null && pinned === selected ? "unpin" : "pin for diff";
    ui.pinned.textContent = pinned === null ? "" : `pinned: ${pinned}`;
  };

  ui.statsToggle.addEventListener("click", () => {
    if (!key) return;
    if (ui.stats.hidden) showStats(key, true);
    else close("stats");
  });
  ui.diffWith.addEventListener("click", () => {
    const shown = viewer.shown;
    if (!key || !shown || viewer.selected < 0) return;
    const other = pinned ?? (shown.model.leaf >= 0 ? viewer.entryId(shown.model.leaf) : null);
    if (other !== null) showDiff(key, viewer.entryId(viewer.selected), other, true);
  });
  ui.pin.addEventListener("click", () => {
    const selected = viewer.selected >= 0 ? viewer.entryId(viewer.selected) : null;
    pinned = pinned !== null && pinned === selected ? null : selected;
    refreshButtons();
  });
  ui.closeStats.addEventListener("click", () => close("stats"));
  ui.closeDiff.addEventListener("click", () => close("diff"));

  viewer.watchers.push({
    opened(shape: SessionShape) {
      if (shape.key !== key) {
        // Another session: what was pinned and shown belongs to the last one.
        key = shape.key;
        pinned = null;
        close("stats");
        close("diff");
      } else {
        // The same session read again (reload, a write): what is shown is counted again.
        if (!ui.stats.hidden) showStats(shape.key, false);
        if (shownDiff) showDiff(shape.key, shownDiff.a, shownDiff.b, false);
      }
      refreshButtons();
    },
    selected: refreshButtons,
  });
  refreshButtons();
}

/** Shows or hides a box with its title (the section around it). */
function setShown(box: HTMLElement, shown: boolean): void {
  box.hidden = !shown;
  if (box.parentElement) box.parentElement.hidden = !shown;
}
