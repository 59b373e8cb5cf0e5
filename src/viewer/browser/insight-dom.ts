/**
 * The stats and diff part of the panel, made by the script (the page's HTML stays the same for
 * every mode): a row of buttons, then the stats box and the diff box, each with a close button.
 */
import { el } from "./dom.js";

export interface InsightsBox {
  box: HTMLElement;
  statsToggle: HTMLButtonElement;
  diffWith: HTMLButtonElement;
  pin: HTMLButtonElement;
  pinned: HTMLSpanElement;
  /** Where the stats and the diff are drawn (hidden until asked for). */
  stats: HTMLElement;
  diff: HTMLElement;
  closeStats: HTMLButtonElement;
  closeDiff: HTMLButtonElement;
}

export function insightsBox(): InsightsBox {
  const box = el("div");
  box.id = "insights";
  const bar = el("div", "insight-bar");
  bar.setAttribute("role", "group");
  bar.setAttribute("aria-label", "Stats and branch diff");
  const statsToggle = button("stats-toggle", "stats", "Tokens, cost, time and tool calls of this session");
  const diffWith = button("diff-with", diffWithLabel(null), "Where this entry's branch and the other part");
  const pin = button("diff-pin", "pin for diff", "Compare other entries with this one instead of the leaf");
  const pinned = el("span", "muted mono");
  pinned.id = "diff-pinned";
  bar.append(statsToggle, diffWith, pin, pinned);
  const [stats, closeStats] = section("stats-panel", "Session stats");
  const [diff, closeDiff] = section("diff-panel", "Branch diff");
  box.append(bar, stats.parentElement as HTMLElement, diff.parentElement as HTMLElement);
  return { box, statsToggle, diffWith, pin, pinned, stats, diff, closeStats, closeDiff };
}

export function diffWithLabel(pinned: string | null): string {
  return pinned === null ? "diff with leaf" : "diff with pinned";
}

function button(id: string, text: string, title: string): HTMLButtonElement {
  const b = el("button", null, text);
  b.id = id;
  b.title = title;
  return b;
}

/** A titled box with a close button; hidden (box and title) while its content is. */
function section(id: string, title: string): [HTMLElement, HTMLButtonElement] {
  const wrap = el("section", "insight-section");
  const head = el("div", "insight-head");
  head.appendChild(el("strong", null, title));
  const close = el("button", "link", "close");
  close.id = `${id}-close`;
  head.appendChild(close);
  const content = el("div");
  content.id = id;
  content.hidden = true;
  wrap.hidden = true;
  wrap.append(head, content);
  return [content, close];
}
