/**
 * `get_context` as text: the projected messages rendered as `sessiontree show` renders them (no
 * colours), cut to a budget of characters. Without a start, the first message (usually the task)
 * and as many of the latest as fit are shown, the middle left out and said so; with a start, the
 * messages from there on, and where to start the next page.
 */
import pc from "picocolors";
import type { ProjectedContext } from "../../core/context.js";
import { renderContext } from "../render/context.js";

/** Lines kept of each tool result and thinking block unless `full`, as `show` does. */
const CLIPPED_LINES = 12;
const WIDTH = 100;
const PLAIN = pc.createColors(false);

export interface ContextTextOptions {
  maxChars: number;
  /** Index of the first message to show; none: the first one and the latest that fit. */
  start?: number;
  /** Tool results and thinking whole, not cut to their first lines. */
  full?: boolean;
}

export interface RenderedMessage {
  index: number;
  entryId: string;
  role: string;
  text: string;
}

export interface ContextText {
  text: string;
  messages: RenderedMessage[];
  /** Messages left out, as index ranges (inclusive). */
  omitted: Array<{ from: number; to: number }>;
  /** With `start`: where the next page starts, or null at the end. */
  nextStart: number | null;
}

export function contextText(context: ProjectedContext, options: ContextTextOptions): ContextText {
  const all = context.messages.map((_, index) => renderOne(context, index, options.full === true));
  const picked =
    options.start === undefined
      ? headAndTail(all, options.maxChars)
      : page(all, options.start, options.maxChars);
  const parts: string[] = [];
  let previous = -1;
  for (const message of picked.messages) {
    if (message.index > previous + 1) parts.push(omission(previous + 1, message.index - 1));
    parts.push(message.text);
    previous = message.index;
  }
  if (previous < all.length - 1) parts.push(omission(previous + 1, all.length - 1));
  return { text: parts.join("\n"), ...picked, omitted: gaps(picked.messages, all.length) };
}

function renderOne(context: ProjectedContext, index: number, full: boolean): RenderedMessage {
  const message = context.messages[index] as unknown as { role?: unknown };
  const entryId = context.messageEntryIds[index] ?? "";
  const lines = renderContext(
    {
      ...context,
      messages: [context.messages[index] as ProjectedContext["messages"][number]],
      messageEntryIds: [entryId],
    },
    { colors: PLAIN, width: WIDTH, maxLines: full ? 0 : CLIPPED_LINES },
  );
  return { index, entryId, role: String(message.role), text: lines.join("\n") };
}

/** The first message and the latest that fit, each cut when it alone is over the budget. */
function headAndTail(all: RenderedMessage[], maxChars: number): Pick<ContextText, "messages" | "nextStart"> {
  const total = all.reduce((sum, m) => sum + m.text.length + 1, 0);
  if (total <= maxChars) return { messages: all, nextStart: null };
  const head = all[0] as RenderedMessage;
  const shownHead = clip(head, Math.floor(maxChars / 4));
  let room = maxChars - shownHead.text.length - 2 * OMISSION_ROOM;
  const tail: RenderedMessage[] = [];
  for (let i = all.length - 1; i >= 1; i--) {
    const message = all[i] as RenderedMessage;
    if (message.text.length + 1 > room) {
      if (tail.length === 0) tail.push(clip(message, Math.max(0, room)));
      break;
    }
    tail.push(message);
    room -= message.text.length + 1;
  }
  return { messages: [shownHead, ...tail.reverse()], nextStart: null };
}

/** Messages from `start` while they fit; the first is cut rather than left out. */
function page(
  all: RenderedMessage[],
  start: number,
  maxChars: number,
): Pick<ContextText, "messages" | "nextStart"> {
  const messages: RenderedMessage[] = [];
  let room = maxChars;
  let i = start;
  for (; i < all.length; i++) {
    const message = all[i] as RenderedMessage;
    if (message.text.length + 1 > room) {
      if (messages.length === 0) {
        messages.push(clip(message, room));
        i++;
      }
      break;
    }
    messages.push(message);
    room -= message.text.length + 1;
  }
  return { messages, nextStart: i < all.length ? i : null };
}

const OMISSION_ROOM = 80;

function omission(from: number, to: number): string {
  const count = to - from + 1;
  return `── … ${count} message${count === 1 ? "" : "s"} left out (${from}–${to}; ask with start=${from}) …\n`;
}

function clip(message: RenderedMessage, chars: number): RenderedMessage {
  if (message.text.length <= chars) return message;
  const cut = message.text.length - chars;
  return { ...message, text: `${message.text.slice(0, chars)}\n… (${cut} more characters)` };
}

function gaps(shown: readonly RenderedMessage[], count: number): ContextText["omitted"] {
  const out: ContextText["omitted"] = [];
  let next = 0;
  for (const message of shown) {
    if (message.index > next) out.push({ from: next, to: message.index - 1 });
    next = message.index + 1;
  }
  if (next < count) out.push({ from: next, to: count - 1 });
  return out;
}
