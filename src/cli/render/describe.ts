import type { SessionEntry } from "../../core/entry.js";
import { messageText } from "../../core/messages.js";

/** What kind of entry a line shows: drives its tag, symbol and colour. */
export type EntryKind =
  | "user"
  | "assistant"
  | "toolResult"
  | "error"
  | "message"
  | "compaction"
  | "branchSummary"
  | "customMessage"
  | "setting"
  | "label"
  | "name"
  | "custom"
  | "other";

export interface EntryDescription {
  kind: EntryKind;
  /** A short tag for the kind ("user", "asst", "tool", ...). */
  tag: string;
  /** One line of text saying what is in the entry. */
  text: string;
}

type Block = Record<string, unknown>;

/** A one-line description of an entry, for trees and listings. */
export function describeEntry(entry: SessionEntry): EntryDescription {
  switch (entry.type) {
    case "message":
      return describeMessage(entry.message as unknown as Block);
    case "compaction":
      return {
        kind: "compaction",
        tag: "compaction",
        text: `${entry.tokensBefore} tokens → ${entry.summary}`,
      };
    case "branch_summary":
      return { kind: "branchSummary", tag: "branch summary", text: entry.summary || "(empty)" };
    case "custom_message":
      return { kind: "customMessage", tag: `msg:${entry.customType}`, text: messageText(entry) };
    case "model_change":
      return { kind: "setting", tag: "model", text: `${entry.provider}/${entry.modelId}` };
    case "thinking_level_change":
      return { kind: "setting", tag: "thinking", text: entry.thinkingLevel };
    case "label":
      return { kind: "label", tag: "label", text: `${entry.targetId} = ${entry.label ?? "(cleared)"}` };
    case "session_info":
      return { kind: "name", tag: "name", text: entry.name ?? "(cleared)" };
    case "custom":
      return { kind: "custom", tag: `ext:${entry.customType}`, text: customText(entry.data) };
    default:
      return { kind: "other", tag: String((entry as { type: unknown }).type), text: "" };
  }
}

function describeMessage(message: Block): EntryDescription {
  const role = String(message.role);
  if (role === "user") return { kind: "user", tag: "user", text: messageText(message) };
  if (role === "assistant") {
    const blocks = Array.isArray(message.content) ? (message.content as Block[]) : [];
    const calls = blocks.filter((b) => b.type === "toolCall").map((b) => String(b.name));
    const text = messageText(message);
    const parts = [text, calls.length > 0 ? `→ ${calls.join(", ")}` : ""].filter(Boolean);
    if (typeof message.errorMessage === "string" && parts.length === 0)
      parts.push(`error: ${message.errorMessage}`);
    const failed = message.stopReason === "error" || message.stopReason === "aborted";
    return { kind: failed ? "error" : "assistant", tag: "asst", text: parts.join(" ") };
  }
  if (role === "toolResult") {
    const kind = message.isError === true ? "error" : "toolResult";
    return { kind, tag: `tool:${String(message.toolName)}`, text: messageText(message) };
  }
  if (role === "bashExecution") return { kind: "message", tag: "bash", text: String(message.command ?? "") };
  return { kind: "message", tag: role, text: messageText(message) };
}

/** Some text from extension data, when it has any (imported records carry their message or summary). */
function customText(data: unknown): string {
  if (!data || typeof data !== "object") return "";
  const record = data as Block;
  if (record.message && typeof record.message === "object") return messageText(record.message as Block);
  for (const key of ["summary", "content", "customTitle"]) {
    if (typeof record[key] === "string") return record[key] as string;
  }
  return "";
}
