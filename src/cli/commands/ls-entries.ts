import type { SessionEntry } from "../../core/entry.js";
import { messageText } from "../../core/messages.js";

/** An entry that holds the text `ls --search` looked for (`--entries`). */
export interface EntryMatch {
  entryId: string;
  /** The message's role (`user`, `assistant`), or `name` for a session name. */
  role: string;
  /** One line around the first occurrence, whitespace folded, cut with `…`. */
  snippet: string;
  /** Where the occurrence is in `snippet`, for highlighting. */
  matchStart: number;
  matchLength: number;
}

export type MatchEntries = (entries: readonly SessionEntry[], needle: string) => EntryMatch[];

/** Characters of context shown before an occurrence, and the snippet's whole length at most. */
const BEFORE = 30;
const WIDTH = 100;

/**
 * The entries whose text holds `needle` (lower case), in file order. Searched: what the session
 * search reads, the text of user and assistant messages and the session names.
 */
export const matchingEntries: MatchEntries = (entries, needle) => {
  const matches: EntryMatch[] = [];
  for (const entry of entries) {
    const searched = searchedText(entry);
    if (!searched) continue;
    const found = snippetAround(searched.text, needle);
    if (found) matches.push({ entryId: entry.id, role: searched.role, ...found });
  }
  return matches;
};

function searchedText(entry: SessionEntry): { role: string; text: string } | null {
  if (entry.type === "session_info") return { role: "name", text: String(entry.name ?? "") };
  if (entry.type !== "message") return null;
  const message = entry.message as { role?: unknown; content?: unknown };
  if (message.role !== "user" && message.role !== "assistant") return null;
  return { role: message.role, text: messageText(message) };
}

/** The first occurrence of `needle` (lower case) in `text` with some context, or null. */
export function snippetAround(
  text: string,
  needle: string,
): { snippet: string; matchStart: number; matchLength: number } | null {
  const flat = text.replace(/\s+/g, " ").trim();
  const lower = flat.toLowerCase();
  const at = lower.indexOf(needle);
  if (at < 0 || needle === "") return null;
  // Lower-casing can change a string's length (rarely: "İ"); then show the lower-cased text.
  const source = lower.length === flat.length ? flat : lower;
  let start = Math.max(0, at - BEFORE);
  // Begin at a word when one begins close by, rather than in the middle of one.
  const space = source.indexOf(" ", start);
  if (start > 0 && space >= 0 && space < at && space - start < 15) start = space + 1;
  const end = Math.min(source.length, Math.max(at + needle.length, start + WIDTH));
  const head = start > 0 ? "…" : "";
  const tail = end < source.length ? "…" : "";
  return {
    snippet: `${head}${source.slice(start, end)}${tail}`,
    matchStart: head.length + at - start,
    matchLength: needle.length,
  };
}
