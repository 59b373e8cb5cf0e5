/**
 * One line about an entry: what the CLI's tree, the Markdown export and the web viewer show for it.
 * Pure (no node: imports), so the browser viewer can bundle it. Keyed by `EntryType`: adding an entry
 * type makes the compiler ask for its description here. Entries of types sessiontree does not know
 * get a generic description; nothing here throws on odd data.
 */
import type { EntryType, SessionEntry } from "../core/entry.js";
import { messageText } from "../core/messages.js";

/** What kind of entry it is, for colour and shape. */
export type EntryKind =
  | "user"
  | "assistant"
  | "toolResult"
  /** An assistant reply that failed or was aborted, or a tool result that is an error. */
  | "error"
  /** A message of another role (`bashExecution`, an extension's). */
  | "message"
  | "compaction"
  | "branchSummary"
  | "customMessage"
  /** A model or thinking level change. */
  | "setting"
  | "label"
  | "name"
  | "custom"
  | "other";

export interface EntryDescription {
  kind: EntryKind;
  /** A short tag for tree columns and `--json`: "user", "asst", "tool:read", "model", "ext:my.ext". */
  tag: string;
  /**
   * What the entry is, in words: "User", "Assistant (gpt-4o)", "Tool result: read (error)",
   * "Model: openai/gpt-4o", "Label on 6573dca7: start". For headings and notes.
   */
  title: string;
  /**
   * What is in it: the message text, the summary, the new setting; "" when nothing. Whole, not cut,
   * and possibly several lines: each renderer cuts it to its own width.
   */
  text: string;
}

type Block = Record<string, unknown>;
type EntryOf<T extends EntryType> = Extract<SessionEntry, { type: T }>;
type Describers = { readonly [T in EntryType]: (entry: EntryOf<T>) => EntryDescription };

/** The one table: a new entry type does not compile until it has a row. */
const DESCRIBERS: Describers = {
  message: (entry) => describeMessage(asBlock(entry.message)),
  compaction: (entry) => ({
    kind: "compaction",
    tag: "compaction",
    title: `Compaction summary (${entry.tokensBefore} tokens before)`,
    text: `${entry.tokensBefore} tokens → ${entry.summary}`,
  }),
  branch_summary: (entry) => ({
    kind: "branchSummary",
    tag: "branch summary",
    title: "Summary of an abandoned branch",
    text: entry.summary || "(empty)",
  }),
  custom_message: (entry) => ({
    kind: "customMessage",
    tag: `msg:${entry.customType}`,
    title: `Extension message (${entry.customType})`,
    text: messageText(entry),
  }),
  model_change: (entry) => setting("model", "Model", `${entry.provider}/${entry.modelId}`),
  thinking_level_change: (entry) => setting("thinking", "Thinking level", entry.thinkingLevel),
  label: (entry) => {
    // An empty label clears, as an absent one does.
    const label = entry.label || "(cleared)";
    return {
      kind: "label",
      tag: "label",
      title: `Label on ${entry.targetId}: ${label}`,
      text: `${entry.targetId} = ${label}`,
    };
  },
  session_info: (entry) => {
    const name = entry.name || "(cleared)";
    return { kind: "name", tag: "name", title: `Session named: ${name}`, text: name };
  },
  custom: (entry) => ({
    kind: "custom",
    tag: `ext:${entry.customType}`,
    title: `Extension state: ${entry.customType}`,
    text: customText(entry.data),
  }),
};

/** A one-line description of any entry; a type sessiontree does not know gets a generic one. */
export function describeEntry(entry: SessionEntry): EntryDescription {
  const type = String((entry as { type?: unknown }).type);
  if (!Object.hasOwn(DESCRIBERS, type)) return unknownEntry(type);
  const describe = DESCRIBERS[type as EntryType] as (entry: SessionEntry) => EntryDescription;
  return describe(entry);
}

function unknownEntry(type: string): EntryDescription {
  return { kind: "other", tag: type, title: `Entry of type ${type}`, text: "" };
}

function setting(tag: string, what: string, value: string): EntryDescription {
  return { kind: "setting", tag, title: `${what}: ${value}`, text: value };
}

function describeMessage(message: Block): EntryDescription {
  const role = String(message.role);
  const text = messageText(message);
  switch (role) {
    case "user":
      return { kind: "user", tag: "user", title: "User", text };
    case "assistant":
      return describeAssistant(message, text);
    case "toolResult": {
      const failed = message.isError === true;
      const name = String(message.toolName);
      const title = `Tool result: ${name}${failed ? " (error)" : ""}`;
      return { kind: failed ? "error" : "toolResult", tag: `tool:${name}`, title, text };
    }
    case "bashExecution":
      return { kind: "message", tag: "bash", title: role, text: String(message.command ?? "") };
    default:
      return { kind: "message", tag: role, title: role, text };
  }
}

/** Its text and the tools it called; with neither, the error it ended with. */
function describeAssistant(message: Block, text: string): EntryDescription {
  const blocks = Array.isArray(message.content) ? (message.content as Block[]) : [];
  const calls = blocks.filter((b) => b?.type === "toolCall").map((b) => String(b.name));
  const parts = [text, calls.length > 0 ? `→ ${calls.join(", ")}` : ""].filter(Boolean);
  if (typeof message.errorMessage === "string" && parts.length === 0)
    parts.push(`error: ${message.errorMessage}`);
  const failed = message.stopReason === "error" || message.stopReason === "aborted";
  const title = `Assistant${typeof message.model === "string" ? ` (${message.model})` : ""}`;
  return { kind: failed ? "error" : "assistant", tag: "asst", title, text: parts.join(" ") };
}

/** Some text from extension data, when it has any (imported records carry their message or summary). */
function customText(data: unknown): string {
  if (!data || typeof data !== "object") return "";
  const record = data as Block;
  if (record.message && typeof record.message === "object") return messageText(asBlock(record.message));
  for (const key of ["summary", "content", "customTitle"]) {
    if (typeof record[key] === "string") return record[key] as string;
  }
  return "";
}

/** A message as a plain record; a missing or malformed one reads as empty rather than throwing. */
function asBlock(value: unknown): Block {
  return value && typeof value === "object" ? (value as Block) : {};
}
