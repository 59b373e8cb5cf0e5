import type { SessionEntry } from "../../core/entry.js";
import { type DescribeContext, describeEntry, type EntryKind } from "../../format/describe.js";

/** How a node is drawn: its colour and mark. The stylesheet's `kind-*` classes use the same names. */
export type Look =
  | "user"
  | "assistant"
  | "tool"
  | "error"
  | "meta"
  | "compaction"
  | "branchSummary"
  | "custom"
  | "customMessage"
  | "label"
  | "other";

/**
 * What a row says: `preview` is the viewer's own one-line message preview (tool calls with their
 * first argument, ✓/✗ on results); the others are format/describe.ts's words for the entry.
 */
type LineRule = "preview" | "title" | "text" | "titleText";

/**
 * describe.ts's kinds as the viewer draws them: a new kind does not compile until it has a row.
 * Compactions and branch summaries say only their text: the row's pill already names them.
 */
const KINDS: { readonly [K in EntryKind]: { look: Look; line: LineRule } } = {
  user: { look: "user", line: "preview" },
  assistant: { look: "assistant", line: "preview" },
  toolResult: { look: "tool", line: "preview" },
  error: { look: "error", line: "preview" },
  message: { look: "other", line: "preview" },
  compaction: { look: "compaction", line: "text" },
  branchSummary: { look: "branchSummary", line: "text" },
  customMessage: { look: "customMessage", line: "titleText" },
  setting: { look: "meta", line: "title" },
  label: { look: "label", line: "title" },
  name: { look: "meta", line: "title" },
  custom: { look: "custom", line: "titleText" },
  other: { look: "other", line: "title" },
};

/** The longest row text kept: the painter cuts rows at 160 characters anyway. */
const LINE_MAX = 160;

/** Every look, in a fixed order: a session's shape sends each node's look as its position here. */
export const LOOKS: readonly Look[] = [
  "user",
  "assistant",
  "tool",
  "error",
  "meta",
  "compaction",
  "branchSummary",
  "custom",
  "customMessage",
  "label",
  "other",
];

/** How an entry is drawn, without working out what its row says. */
export function entryLook(entry: SessionEntry, context: DescribeContext = {}): Look {
  return KINDS[describeEntry(withoutContent(entry), context).kind].look;
}

/** How an entry is drawn and what its row says. */
export function entryLine(entry: SessionEntry, context: DescribeContext = {}): { look: Look; text: string } {
  const description = describeEntry(withoutContent(entry), context);
  const { look, line } = KINDS[description.kind];
  switch (line) {
    case "preview":
      return { look, text: messagePreview((entry as { message?: unknown }).message) };
    case "title":
      return { look, text: oneLine(description.title, LINE_MAX) };
    case "text":
      return { look, text: oneLine(description.text, LINE_MAX) || "(empty)" };
    case "titleText": {
      const text = oneLine(description.text, LINE_MAX);
      return { look, text: oneLine(text ? `${description.title}: ${text}` : description.title, LINE_MAX) };
    }
  }
}

/**
 * A message's row is the viewer's own preview: describe.ts is asked only for its kind, which does
 * not depend on the content, so a tool result's megabyte is not joined into a text for nothing.
 */
function withoutContent(entry: SessionEntry): SessionEntry {
  if (entry.type !== "message" || !entry.message || typeof entry.message !== "object") return entry;
  return { ...entry, message: { ...entry.message, content: [] } } as SessionEntry;
}

type Fields = Record<string, unknown>;

function fieldsOf(value: unknown): Fields {
  return value && typeof value === "object" ? (value as Fields) : {};
}

/** A message's content on one line: more telling than its text alone. */
function messagePreview(message: unknown): string {
  const m = fieldsOf(message);
  switch (m.role) {
    case "user":
      return oneLine(contentText(m.content, LINE_MAX * 4), LINE_MAX) || "(empty)";
    case "assistant":
      return assistantPreview(m);
    case "toolResult":
      return `${m.isError ? "✗ " : "✓ "}${String(m.toolName)}: ${oneLine(contentText(m.content, 640), 160)}`;
    case "bashExecution":
      return `$ ${oneLine(m.command, 160)}`;
    case "custom":
      return `${String(m.customType)}: ${oneLine(contentText(m.content, 640), 160)}`;
    default:
      return String(m.role);
  }
}

function assistantPreview(m: Fields): string {
  const blocks = Array.isArray(m.content) ? (m.content as unknown[]).map(fieldsOf) : [];
  const text = oneLine(contentText(blocks, LINE_MAX * 4), LINE_MAX);
  if (m.stopReason === "error" || m.stopReason === "aborted") {
    return `${m.stopReason}: ${oneLine(m.errorMessage || text, 160)}`;
  }
  const calls = blocks.filter((b) => b.type === "toolCall").map(toolCallText);
  const parts: string[] = [];
  if (text) parts.push(text);
  if (calls.length > 0) parts.push(`→ ${calls.join(", ")}`);
  if (parts.length === 0 && blocks.some((b) => b.type === "thinking")) parts.push("(thinking only)");
  return parts.join("  ") || "(empty)";
}

/** `read(src/parser.ts)`: the tool and its first argument. */
function toolCallText(block: Fields): string {
  const args = fieldsOf(block.arguments);
  const first = Object.keys(args)[0];
  const value = first === undefined ? undefined : args[first];
  const preview =
    first === undefined ? "" : oneLine(typeof value === "string" ? value : JSON.stringify(value), 60);
  return `${String(block.name || "tool")}(${preview})`;
}

/** Text blocks as text, images as "[image]"; past `enough` characters the rest is left out. */
export function contentText(content: unknown, enough = Number.POSITIVE_INFINITY): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  let length = 0;
  for (const block of content) {
    if (length >= enough) break;
    const b = fieldsOf(block);
    const part = b.type === "text" ? String(b.text || "") : b.type === "image" ? "[image]" : "";
    if (!part) continue;
    parts.push(part);
    length += part.length + 1;
  }
  return parts.join(" ");
}

export function oneLine(text: unknown, max: number): string {
  const whole = String(text ?? "");
  // A tool result can be a megabyte: collapse only its head, unless whitespace ate most of it.
  const head = whole.length > max * 4 ? whole.slice(0, max * 4) : whole;
  let s = collapse(head);
  if (s.length < max && head.length < whole.length) s = collapse(whole);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
