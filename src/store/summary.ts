import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "../core/entry.js";
import { nowIso } from "../core/ids.js";
import { newSessionId } from "../core/session-id.js";
import { foldListingFields } from "../format/summary-fields.js";
import { requireSafeSessionId } from "./engine/rules.js";
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
    parentSession: typeof header.parentSession === "string" ? listable(header.parentSession) : undefined,
    // A header without a string timestamp (a damaged file, kept whole) was made no later than now.
    createdAt: typeof header.timestamp === "string" ? listable(header.timestamp) : now,
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
  const listed = foldListingFields(current, entries, firstUserText);
  // Names come from session_info entries as pi reads them; NULs are dropped as from every listed text.
  const name = listed.name === undefined ? undefined : listable(listed.name);
  return { ...listed, name, entryCount: current.entryCount + entries.length };
}

/** The listed text of a message: a user message's text blocks, one per line, its first 1,000 characters. */
function firstUserText(message: { role: string; content?: unknown }): string {
  if (message.role !== "user") return "";
  const content = message.content;
  let text = "";
  if (typeof content === "string") text = content;
  else if (Array.isArray(content)) {
    text = content
      .filter((block) => block?.type === "text" && typeof block.text === "string")
      .map((block) => block.text as string)
      .join("\n");
  }
  // Cut between characters: the half of a surrogate pair would read back as U+FFFD.
  const cut = isHighSurrogate(text.charCodeAt(FIRST_MESSAGE_MAX - 1))
    ? FIRST_MESSAGE_MAX - 1
    : FIRST_MESSAGE_MAX;
  return listable(text.slice(0, cut));
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Listing columns are derived copies (the entries keep every byte), and every backend must list
 * alike: NUL characters are dropped (PostgreSQL's text type refuses NUL), and a lone surrogate
 * (not text in UTF-8) becomes U+FFFD here, once, rather than three of them read back from SQLite
 * and one from PostgreSQL.
 */
function listable(text: string): string {
  const noNul = text.includes("\u0000") ? text.replaceAll("\u0000", "") : text;
  return wellFormed(noNul);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `String.prototype.toWellFormed` (not in this TypeScript's library). */
function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, "\ufffd");
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
