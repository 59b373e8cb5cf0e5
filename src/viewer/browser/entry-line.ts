import type { SessionEntry } from "../../core/entry.js";
import { type DescribeContext, describeEntry, type EntryKind } from "../../format/describe.js";
import type { Model } from "./model.js";

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

const LINE_MAX = 200;

/** A node's look, worked out (with its text) the first time it is asked for. */
export function nodeLook(model: Model, v: number): Look {
  let look = model.looks[v];
  if (look === undefined) {
    const entry = model.entries[v] as SessionEntry;
    const line = entryLine(entry, describeContext(model, entry));
    look = line.look;
    model.looks[v] = look;
    model.texts[v] = line.text;
  }
  return look;
}

/** A node's one line of text. */
export function nodeText(model: Model, v: number): string {
  nodeLook(model, v);
  return model.texts[v] as string;
}

/** What the session around an entry tells about it (a sidechain's subagent). */
export function describeContext(model: Model, entry: SessionEntry): DescribeContext {
  return { subagent: model.subagents.get(entry.id) };
}

/** How an entry is drawn and what its row says. */
export function entryLine(entry: SessionEntry, context: DescribeContext = {}): { look: Look; text: string } {
  const description = describeEntry(entry, context);
  const { look, line } = KINDS[description.kind];
  const text = oneLine(description.text, LINE_MAX);
  switch (line) {
    case "preview":
      return { look, text: messagePreview((entry as { message?: unknown }).message) };
    case "title":
      return { look, text: oneLine(description.title, LINE_MAX) };
    case "text":
      return { look, text: text || "(empty)" };
    case "titleText":
      return { look, text: oneLine(text ? `${description.title}: ${text}` : description.title, LINE_MAX) };
  }
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
      return oneLine(contentText(m.content), LINE_MAX) || "(empty)";
    case "assistant":
      return assistantPreview(m);
    case "toolResult":
      return `${m.isError ? "✗ " : "✓ "}${String(m.toolName)}: ${oneLine(contentText(m.content), 160)}`;
    case "bashExecution":
      return `$ ${oneLine(m.command, 160)}`;
    case "custom":
      return `${String(m.customType)}: ${oneLine(contentText(m.content), 160)}`;
    default:
      return String(m.role);
  }
}

function assistantPreview(m: Fields): string {
  const blocks = Array.isArray(m.content) ? (m.content as unknown[]).map(fieldsOf) : [];
  const text = oneLine(contentText(blocks), LINE_MAX);
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

/** Text blocks as text, images as "[image]". */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) => {
      const b = fieldsOf(block);
      if (b.type === "text") return String(b.text || "");
      return b.type === "image" ? "[image]" : "";
    })
    .filter(Boolean)
    .join(" ");
}

export function oneLine(text: unknown, max: number): string {
  const s = String(text ?? "")
    .replace(/\s+/g, " ")
    .trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
