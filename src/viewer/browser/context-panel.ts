import type { ContextAtNode } from "../context-at.js";
import { clear, el } from "./dom.js";
import { messageView } from "./message-view.js";

/** Messages shown at first, the latest ones; the rest on request. */
export const CONTEXT_SHOWN = 200;

/**
 * What the panel shows: the answer of /api/context (or the export's own projection). A server answer
 * may hold only the latest messages (`omitted` earlier ones left out); `showAll` lists every message.
 */
export type PanelContext = ContextAtNode & { omitted?: number; showAll?: boolean };

/** The panel's "Context" part; `loadAll` fetches the messages a server answer left out. */
export function renderContext(
  box: HTMLElement,
  ctx: PanelContext,
  onJump: (id: string) => void,
  loadAll?: () => void,
): void {
  clear(box);
  const omitted = ctx.omitted ?? 0;
  box.appendChild(summaryLine(ctx, omitted));
  if (ctx.compaction) {
    const { entryId, firstKeptEntryId } = ctx.compaction;
    box.appendChild(el("div", "muted", `compaction ${entryId} in force, kept from ${firstKeptEntryId}`));
  }
  for (const w of ctx.warnings) box.appendChild(el("div", "warning", `${w.code}: ${w.message}`));
  const list = el("div", "ctx-list");
  list.id = "context-messages";
  box.appendChild(list);
  if (omitted > 0 && loadAll) {
    const fetchEarlier = el("button", "link", `show the ${omitted} earlier messages`);
    fetchEarlier.addEventListener("click", () => {
      fetchEarlier.disabled = true;
      loadAll();
    });
    box.insertBefore(fetchEarlier, list);
  }
  const start = ctx.showAll ? 0 : Math.max(0, ctx.messages.length - CONTEXT_SHOWN);
  if (start > 0) {
    const earlier = el("button", "link", `show the ${start} earlier messages`);
    earlier.addEventListener("click", () => {
      earlier.remove();
      fillMessages(list, ctx, 0, start, onJump, list.firstChild);
    });
    box.insertBefore(earlier, list);
  }
  fillMessages(list, ctx, start, ctx.messages.length, onJump, null);
}

function summaryLine(ctx: PanelContext, omitted: number): HTMLDivElement {
  const summary = el("div", "ctx-summary");
  summary.id = "context-summary";
  const model = ctx.model ? `${ctx.model.provider}/${ctx.model.modelId}` : "no model";
  summary.textContent = `${ctx.messages.length + omitted} messages · ${model} · thinking ${ctx.thinkingLevel} · path of ${ctx.pathLength} entries`;
  return summary;
}

function fillMessages(
  list: HTMLElement,
  ctx: PanelContext,
  from: number,
  to: number,
  onJump: (id: string) => void,
  before: Node | null,
): void {
  const frag = document.createDocumentFragment();
  for (let i = from; i < to; i++) {
    const id = ctx.messageEntryIds[i] as string;
    const view = messageView(ctx.messages[i] as { role: string }, id);
    view.classList.add("ctx-msg");
    view.title = `entry ${id} (click to show it in the tree)`;
    view.addEventListener("click", (ev) => {
      // A click on the message's own buttons and toggles is theirs.
      const target = ev.target as HTMLElement | null;
      if (target && (target.tagName === "BUTTON" || target.tagName === "SUMMARY")) return;
      onJump(id);
    });
    frag.appendChild(view);
  }
  list.insertBefore(frag, before);
}
