import { statSync } from "node:fs";
import type { SessionEntry, SessionHeader } from "../core/entry.js";
import { messageText } from "../core/messages.js";
import { readSessionFile } from "../file/read-file.js";
import { foldListingFields } from "../format/summary-fields.js";

/** One line of a session listing, with pi's fields. */
export interface SessionInfo {
  path: string;
  id: string;
  /** Working directory where the session was started; empty for old sessions. */
  cwd: string;
  name?: string;
  parentSessionPath?: string;
  created: Date;
  modified: Date;
  messageCount: number;
  firstMessage: string;
  allMessagesText: string;
}

/**
 * The listing fields folded over entries in file order, kept between calls so that a file that
 * only grew can be summarised from where the last read stopped (see catalog.ts).
 */
export interface SummaryState {
  messageCount: number;
  firstMessage: string;
  name: string | undefined;
  lastActivity: number | undefined;
  texts: string[];
}

export function emptySummary(): SummaryState {
  return { messageCount: 0, firstMessage: "", name: undefined, lastActivity: undefined, texts: [] };
}

/** Folds more entries (in file order) into `state`, as pi's listing reads them. */
export function addToSummary(state: SummaryState, entries: Iterable<SessionEntry>): SummaryState {
  const list = Array.isArray(entries) ? (entries as readonly SessionEntry[]) : [...entries];
  Object.assign(state, foldListingFields(state, list, firstUserText));
  // What only pi's listing shows: the last activity, and every user and assistant text (search).
  for (const entry of list) {
    if (entry.type !== "message") continue;
    const message = entry.message as { role: string; content?: unknown; timestamp?: unknown };
    if (!isListedRole(message)) continue;
    state.lastActivity = Math.max(state.lastActivity ?? 0, activityTime(message.timestamp, entry.timestamp));
    const text = messageText(message);
    if (text) state.texts.push(text);
  }
  return state;
}

/** pi lists the text of user and assistant messages that have content. */
function isListedRole(message: { role: string }): boolean {
  return (message.role === "user" || message.role === "assistant") && "content" in message;
}

/** pi's first message: the first user message with text, as the text search sees it. */
function firstUserText(message: { role: string; content?: unknown }): string {
  return message.role === "user" && isListedRole(message) ? messageText(message) : "";
}

/** The listing line from a header and a folded summary. */
export function infoFrom(
  path: string,
  header: SessionHeader,
  state: Omit<SummaryState, "texts">,
  mtime: Date,
  allMessagesText: string,
): SessionInfo {
  const headerTime = Date.parse(header.timestamp);
  const modified = state.lastActivity
    ? new Date(state.lastActivity)
    : Number.isNaN(headerTime)
      ? mtime
      : new Date(headerTime);
  return {
    path,
    id: header.id,
    cwd: typeof header.cwd === "string" ? header.cwd : "",
    name: state.name,
    parentSessionPath: header.parentSession,
    created: new Date(header.timestamp),
    modified,
    messageCount: state.messageCount,
    firstMessage: state.firstMessage || "(no messages)",
    allMessagesText,
  };
}

/** Reads one file's listing fields, or null when it is not a readable session (as pi skips it). */
export function readSessionInfo(path: string): SessionInfo | null {
  try {
    const decoded = readSessionFile(path);
    if (!decoded.header) return null;
    return summarize(
      path,
      decoded.header,
      decoded.entries.map((e) => e.entry),
      statSync(path).mtime,
    );
  } catch {
    return null;
  }
}

/** pi's listing fields from a header and entries in file order. */
export function summarize(
  path: string,
  header: SessionHeader,
  entries: readonly SessionEntry[],
  mtime: Date,
): SessionInfo {
  const state = addToSummary(emptySummary(), entries);
  return infoFrom(path, header, state, mtime, state.texts.join(" "));
}

function activityTime(messageTimestamp: unknown, entryTimestamp: string): number {
  if (typeof messageTimestamp === "number") return messageTimestamp;
  const t = Date.parse(entryTimestamp);
  return Number.isNaN(t) ? 0 : t;
}
