/**
 * One line about an entry: what the CLI's tree, the Markdown export and the web viewer show for it.
 * Pure (no node: imports), so the browser viewer can bundle it. Keyed by `EntryType`: adding an entry
 * type makes the compiler ask for its description here. Entries of types sessiontree does not know
 * get a generic description; nothing here throws on odd data.
 */
import type { EntryType, SessionEntry } from "../core/entry.js";
import { messageText } from "../core/messages.js";
import { isWellFormed } from "../core/validate.js";

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

/** What a caller may know of an entry beyond the entry itself. */
export interface DescribeContext {
  /**
   * The subagent a Claude Code sidechain entry belongs to, as `subagentNames` finds it from the
   * whole session (the call that started it); without it, what the entry itself says.
   */
  subagent?: string;
}

type Block = Record<string, unknown>;
type EntryOf<T extends EntryType> = Extract<SessionEntry, { type: T }>;
type Describers = {
  readonly [T in EntryType]: (entry: EntryOf<T>, context: DescribeContext) => EntryDescription;
};

/** How the Claude Code importer (claude-code.ts) keeps a subagent's line: the raw record as data. */
export const SIDECHAIN_TYPE = "claude-code.sidechain";

/** The one table: a new entry type does not compile until it has a row. */
const DESCRIBERS: Describers = {
  message: (entry) => describeMessage(asBlock(entry.message)),
  compaction: (entry) => ({
    kind: "compaction",
    tag: "compaction",
    title: `Compaction summary (${tokensBeforeText(entry.tokensBefore)} tokens before)`,
    text: `${tokensBeforeText(entry.tokensBefore)} tokens → ${entry.summary}`,
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
  custom: (entry, context) =>
    entry.customType === SIDECHAIN_TYPE
      ? describeSidechain(asBlock(entry.data), context.subagent)
      : {
          kind: "custom",
          tag: `ext:${entry.customType}`,
          title: `Extension state: ${entry.customType}`,
          text: customText(entry.data),
        },
};

/** A one-line description of any entry; a type sessiontree does not know gets a generic one. */
export function describeEntry(entry: SessionEntry, context: DescribeContext = {}): EntryDescription {
  const type = String((entry as { type?: unknown }).type);
  if (!Object.hasOwn(DESCRIBERS, type)) return unknownEntry(type);
  // Read from a file whose writer named its fields otherwise: shown for what it is, nothing taken from it.
  if (!isWellFormed(entry))
    return { ...unknownEntry(type), title: `Entry of type ${type}, its fields not as expected` };
  const describe = DESCRIBERS[type as EntryType] as (
    entry: SessionEntry,
    context: DescribeContext,
  ) => EntryDescription;
  return describe(entry, context);
}

/** A compaction's `tokensBefore` as shown: "?" where its writer left it out (pi reads such files). */
export function tokensBeforeText(tokensBefore: unknown): string {
  return typeof tokensBefore === "number" ? String(tokensBefore) : "?";
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

/**
 * A line of a Claude Code subagent (a sidechain the importer kept as a `custom` entry): its text,
 * tool calls and results, under the subagent's name. Still kind "custom": it is not part of the
 * main conversation, and is drawn apart from it.
 */
function describeSidechain(record: Block, subagent: string | undefined): EntryDescription {
  const message = asBlock(record.message);
  const role = String(message.role ?? record.type ?? "message");
  const name = subagent ?? ownSubagentName(record);
  return {
    kind: "custom",
    tag: name ? `sub:${name}` : "subagent",
    title: `Subagent${name ? ` ${name}` : ""} · ${role}`,
    text: claudeContentText(message.content),
  };
}

/** What a sidechain record says of its subagent: its type when recorded, else its agent id. */
function ownSubagentName(record: Block): string | undefined {
  for (const key of ["agentType", "subagentType", "subagent_type", "agentId"]) {
    if (typeof record[key] === "string" && record[key] !== "") return record[key] as string;
  }
  return undefined;
}

/** Claude Code message content on one line: text, `→ Tool` for calls, results and their text. */
function claudeContentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const value of content) {
    const block = asBlock(value);
    if (block.type === "text" && typeof block.text === "string") parts.push(block.text);
    else if (block.type === "tool_use") parts.push(`→ ${String(block.name ?? "tool")}`);
    else if (block.type === "tool_result") {
      const result = claudeContentText(block.content);
      parts.push(`${block.is_error === true ? "✗" : "✓"} ${result}`.trimEnd());
    } else if (block.type === "image") parts.push("[image]");
  }
  const thinkingOnly = parts.length === 0 && content.some((b) => asBlock(b).type === "thinking");
  return thinkingOnly ? "(thinking)" : parts.join(" ");
}

/**
 * The subagent of every Claude Code sidechain entry of a session, by entry id: the `subagent_type`
 * of the tool call that started it (the call in the main entry its first line hangs under; among
 * several calls, the one whose prompt it is), else what the records say (describeSidechain). A
 * sidechain line under another inherits its subagent. One pass in storage order.
 */
export function subagentNames(entries: readonly SessionEntry[]): Map<string, string> {
  const byId = new Map<string, SessionEntry>();
  for (const entry of entries) if (!byId.has(entry.id)) byId.set(entry.id, entry);
  const names = new Map<string, string>();
  for (const entry of entries) {
    if (!isSidechain(entry)) continue;
    const parent = entry.parentId === null ? undefined : byId.get(entry.parentId);
    const record = asBlock((entry as EntryOf<"custom">).data);
    const name =
      (parent && isSidechain(parent) ? names.get(parent.id) : undefined) ??
      startingCall(messageAbove(parent, byId), claudeContentText(asBlock(record.message).content)) ??
      ownSubagentName(record);
    if (name !== undefined) names.set(entry.id, name);
  }
  return names;
}

/** A Claude Code subagent's line, named from the lines around it (`subagentNames`). */
export function isSidechain(entry: SessionEntry): boolean {
  return entry.type === "custom" && entry.customType === SIDECHAIN_TYPE;
}

/**
 * The nearest message at or above `entry`: the importer hangs a sidechain under the latest main
 * line, which may be a side record (a file-history snapshot) chained after the call's message.
 */
function messageAbove(
  entry: SessionEntry | undefined,
  byId: Map<string, SessionEntry>,
): SessionEntry | undefined {
  let at = entry;
  for (let steps = 0; at && at.type === "custom" && !isSidechain(at) && steps < 100; steps++)
    at = at.parentId === null ? undefined : byId.get(at.parentId);
  return at;
}

/** The subagent type of the call in `parent` that started a sidechain whose first text is `prompt`. */
function startingCall(parent: SessionEntry | undefined, prompt: string): string | undefined {
  if (parent?.type !== "message") return undefined;
  const content = asBlock(parent.message).content;
  const calls = (Array.isArray(content) ? (content as unknown[]) : [])
    .map((block) => asBlock(asBlock(block).arguments))
    .filter((args) => typeof args.subagent_type === "string");
  const call = calls.length === 1 ? calls[0] : calls.find((args) => args.prompt === prompt);
  return call?.subagent_type as string | undefined;
}
