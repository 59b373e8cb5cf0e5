import type { MessagePage, SelectionAnswer } from "../context-at.js";
import { clear, el } from "./dom.js";
import { messageView } from "./message-view.js";

/** Messages asked for at a click, the latest ones; earlier ones a page at a time on request. */
export const CONTEXT_SHOWN = 200;
export const EARLIER_PAGE = 1000;

/** Asks for a page of the context at the entry shown (the server, or the export's own tree). */
export type PageLoader = (page: MessagePage) => Promise<SelectionAnswer>;

/** Messages drawn before the panel is shown: more than fill it; the rest follow a chunk a frame. */
const FIRST_CHUNK = 24;
const CHUNK = 60;

/**
 * The panel's "Context" part: a page of the answer's messages, and a button for the earlier ones.
 * The first messages are drawn at once, the others in the tasks after (a message can be a long
 * tool result): resolves when all are there. `current` says whether this answer is still the one
 * to show.
 */
export async function renderContext(
  box: HTMLElement,
  ctx: SelectionAnswer,
  onJump: (id: string) => void,
  loadPage: PageLoader,
  current: () => boolean,
): Promise<void> {
  clear(box);
  box.appendChild(summaryLine(ctx));
  if (ctx.compaction) {
    const { entryId, firstKeptEntryId } = ctx.compaction;
    box.appendChild(el("div", "muted", `compaction ${entryId} in force, kept from ${firstKeptEntryId}`));
  }
  for (const w of ctx.warnings) box.appendChild(el("div", "warning", `${w.code}: ${w.message}`));
  const list = el("div", "ctx-list");
  list.id = "context-messages";
  box.appendChild(list);
  if (ctx.omitted > 0) box.insertBefore(earlierButton(list, ctx.omitted, onJump, loadPage), list);
  const count = ctx.messages.length;
  fillMessages(list, ctx, 0, Math.min(count, FIRST_CHUNK), onJump, null);
  for (let from = FIRST_CHUNK; from < count && current(); from += CHUNK) {
    await nextFrame();
    if (current()) fillMessages(list, ctx, from, Math.min(count, from + CHUNK), onJump, null);
  }
}

/**
 * Resolves in a task after the next frame: the tree's canvas (its first frame, the rows whose
 * texts just arrived) is drawn between two chunks of messages, never behind all of them.
 */
function nextFrame(): Promise<void> {
  return new Promise((next) => requestAnimationFrame(() => setTimeout(next, 0)));
}

/** "show the N earlier messages": each click prepends the page before the first one shown. */
function earlierButton(
  list: HTMLElement,
  omitted: number,
  onJump: (id: string) => void,
  loadPage: PageLoader,
): HTMLButtonElement {
  let first = omitted;
  const button = el("button", "link");
  button.id = "context-earlier";
  const label = () => {
    button.textContent = `show the ${Math.min(first, EARLIER_PAGE)} earlier messages`;
    if (first > EARLIER_PAGE) button.textContent += ` (${first} in all)`;
  };
  label();
  button.addEventListener("click", () => {
    button.disabled = true;
    loadPage({ before: first, tail: EARLIER_PAGE }).then(
      (page) => {
        fillMessages(list, page, 0, page.messages.length, onJump, list.firstChild);
        first = page.omitted;
        button.disabled = false;
        if (first === 0) button.remove();
        else label();
      },
      (err: Error) => {
        button.textContent = `could not load them: ${err.message}`;
      },
    );
  });
  return button;
}

function summaryLine(ctx: SelectionAnswer): HTMLDivElement {
  const summary = el("div", "ctx-summary");
  summary.id = "context-summary";
  const model = ctx.model ? `${ctx.model.provider}/${ctx.model.modelId}` : "no model";
  summary.textContent = `${ctx.total} messages · ${model} · thinking ${ctx.thinkingLevel} · path of ${ctx.pathLength} entries`;
  return summary;
}

function fillMessages(
  list: HTMLElement,
  ctx: SelectionAnswer,
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
