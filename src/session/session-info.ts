import { statSync } from "node:fs";
import type { SessionEntry, SessionHeader } from "../core/entry.js";
import { messageText } from "../core/messages.js";
import { readSessionFile } from "../store/jsonl/read-file.js";

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
  let messageCount = 0;
  let firstMessage = "";
  let name: string | undefined;
  let lastActivity: number | undefined;
  const texts: string[] = [];
  for (const entry of entries) {
    if (entry.type === "session_info") name = entry.name?.trim() || undefined;
    if (entry.type !== "message") continue;
    messageCount++;
    const message = entry.message as { role: string; content?: unknown; timestamp?: unknown };
    if ((message.role !== "user" && message.role !== "assistant") || !("content" in message)) continue;
    lastActivity = Math.max(lastActivity ?? 0, activityTime(message.timestamp, entry.timestamp));
    const text = messageText(message);
    if (!text) continue;
    texts.push(text);
    if (!firstMessage && message.role === "user") firstMessage = text;
  }
  const headerTime = Date.parse(header.timestamp);
  const modified = lastActivity
    ? new Date(lastActivity)
    : Number.isNaN(headerTime)
      ? mtime
      : new Date(headerTime);
  return {
    path,
    id: header.id,
    cwd: typeof header.cwd === "string" ? header.cwd : "",
    name,
    parentSessionPath: header.parentSession,
    created: new Date(header.timestamp),
    modified,
    messageCount,
    firstMessage: firstMessage || "(no messages)",
    allMessagesText: texts.join(" "),
  };
}

function activityTime(messageTimestamp: unknown, entryTimestamp: string): number {
  if (typeof messageTimestamp === "number") return messageTimestamp;
  const t = Date.parse(entryTimestamp);
  return Number.isNaN(t) ? 0 : t;
}
