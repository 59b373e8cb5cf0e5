/**
 * What of an entry full-text search sees: one home for every index (local files, SQLite FTS5,
 * PostgreSQL), so a query finds the same entries whichever store holds them.
 *
 * Searched: the text of user, assistant and custom messages; tool calls (the tool's name and its
 * arguments as JSON, so `grep` and `src/app.ts` are found); tool results (their text); compaction and
 * branch summaries; a bash execution's command and output. Not searched: thinking (private to the
 * model, often long), images, settings changes, labels, names and extension state (metadata).
 */
import type { SessionEntry } from "./entry.js";
import type { SearchHit } from "./search-hit.js";
import { isWellFormed } from "./validate.js";

/** Longest text taken from one entry: a 1 MB tool output is searched by its head, not whole. */
export const SEARCH_TEXT_LIMIT = 64 * 1024;

/** The searchable text of an entry, or "" when it has none (or is malformed: core/validate.ts). */
export function searchableText(entry: SessionEntry): string {
  if (!isWellFormed(entry)) return "";
  const text = rawText(entry);
  return text.length > SEARCH_TEXT_LIMIT ? text.slice(0, SEARCH_TEXT_LIMIT) : text;
}

/** The kind of searchable entry, shown beside a hit. */
export function searchKind(entry: SessionEntry): SearchHit["kind"] | null {
  if (!isWellFormed(entry)) return null;
  switch (entry.type) {
    case "message": {
      const role = (entry.message as { role?: unknown }).role;
      if (role === "user" || role === "assistant" || role === "toolResult") return role;
      return role === "bashExecution" ? "toolResult" : "custom";
    }
    case "custom_message":
      return "custom";
    case "compaction":
    case "branch_summary":
      return "summary";
    default:
      return null;
  }
}

function rawText(entry: SessionEntry): string {
  switch (entry.type) {
    case "message":
      return messageSearchText(entry.message as unknown as Record<string, unknown>);
    case "custom_message":
      return contentText(entry.content, false);
    case "compaction":
    case "branch_summary":
      return typeof entry.summary === "string" ? entry.summary : "";
    default:
      return "";
  }
}

function messageSearchText(message: Record<string, unknown>): string {
  const role = message.role;
  if (role === "bashExecution") {
    return [message.command, message.output].filter((part) => typeof part === "string").join("\n");
  }
  if (role === "branchSummary" || role === "compactionSummary") {
    return typeof message.summary === "string" ? message.summary : "";
  }
  return contentText(message.content, true);
}

/** Text blocks, and tool calls as `name {arguments}`; thinking and images are left out. */
function contentText(content: unknown, withToolCalls: boolean): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (!block || typeof block !== "object") continue;
    const { type, text, name, arguments: args } = block as Record<string, unknown>;
    if (type === "text" && typeof text === "string") parts.push(text);
    else if (withToolCalls && type === "toolCall" && typeof name === "string") {
      parts.push(args === undefined ? name : `${name} ${safeJson(args)}`);
    }
  }
  return parts.join("\n");
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}
