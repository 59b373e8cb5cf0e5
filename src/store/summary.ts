import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "../core/entry.js";
import { newSessionId, nowIso } from "../core/ids.js";
import { requireSafeSessionId } from "./rules.js";
import type { CreateSessionInput, SessionSummary } from "./store.js";

/** List pages carry this much of the first user message; search looks at the same text. */
export const FIRST_MESSAGE_MAX = 1000;

/** The v3 header of a new session. A name given at creation is kept in the header (pi keeps unknown fields). */
export function buildHeader(init: CreateSessionInput = {}): SessionHeader {
  const header: SessionHeader = {
    type: "session",
    version: CURRENT_SESSION_VERSION,
    id: requireSafeSessionId(init.id ?? newSessionId()),
    timestamp: init.timestamp ?? nowIso(),
    cwd: init.cwd ?? "",
  };
  if (init.parentSession !== undefined) header.parentSession = init.parentSession;
  const name = init.name?.trim();
  if (name) header.name = name;
  return header;
}

/** The summary of a session with no entries yet (revision 1: creating is the first write). */
export function initialSummary(owner: string, header: SessionHeader, now: string): SessionSummary {
  return {
    id: header.id,
    owner,
    cwd: typeof header.cwd === "string" ? listable(header.cwd) : "",
    name: typeof header.name === "string" && header.name.trim() ? listable(header.name.trim()) : undefined,
    parentSession: typeof header.parentSession === "string" ? header.parentSession : undefined,
    createdAt: header.timestamp,
    modifiedAt: now,
    revision: 1,
    leafId: null,
    entryCount: 0,
    messageCount: 0,
    firstMessage: "",
    deletedAt: null,
  };
}

/** The summary fields that follow from the entries: updated per append, in O(batch). */
export type DerivedFields = Pick<SessionSummary, "entryCount" | "messageCount" | "firstMessage" | "name">;

export function applyEntries(current: DerivedFields, entries: readonly SessionEntry[]): DerivedFields {
  let { entryCount, messageCount, firstMessage, name } = current;
  for (const entry of entries) {
    entryCount++;
    if (entry.type === "message") {
      messageCount++;
      if (!firstMessage && entry.message.role === "user") firstMessage = userText(entry.message.content);
    } else if (entry.type === "session_info") {
      // As pi: the latest session_info wins, an empty name clears it.
      name = typeof entry.name === "string" && entry.name.trim() ? listable(entry.name.trim()) : undefined;
    }
  }
  return { entryCount, messageCount, firstMessage, name };
}

function userText(content: unknown): string {
  let text = "";
  if (typeof content === "string") text = content;
  else if (Array.isArray(content)) {
    text = content
      .filter((block) => block?.type === "text" && typeof block.text === "string")
      .map((block) => block.text as string)
      .join("\n");
  }
  return listable(text.slice(0, FIRST_MESSAGE_MAX));
}

/**
 * Listing columns are derived copies (the entries keep every byte): NUL characters are dropped
 * from them, because PostgreSQL's text type refuses NUL and every backend must list alike.
 */
function listable(text: string): string {
  return text.includes("\u0000") ? text.replaceAll("\u0000", "") : text;
}

/** What search matches against, lowercased once at write time so every backend compares alike. */
export function searchText(summary: Pick<SessionSummary, "name" | "firstMessage">): string {
  return `${summary.name ?? ""}\u001f${summary.firstMessage}`.toLowerCase();
}

/** The search term as backends compare it (null: no search). */
export function normalizeSearch(search: string | undefined): string | null {
  const term = search?.trim().toLowerCase();
  return term ? term : null;
}
