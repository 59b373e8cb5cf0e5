import type { SessionEntry } from "../../core/entry.js";
import type { SearchHit } from "../../core/search-hit.js";
import { searchableText, searchKind } from "../../core/search-text.js";

const NUL = String.fromCharCode(0);

/** One indexed entry: what the SQL stores keep per entry with searchable text. */
export interface SearchDoc {
  entryId: string;
  kind: SearchHit["kind"];
  timestamp: string;
  text: string;
}

/**
 * Search texts of a batch as the caller wrote it, by entry id: taken before large payloads leave
 * the rows (a 1 MB tool output stored as a blob reference is still found by its head).
 */
export type SearchTexts = ReadonlyMap<string, string>;

export function captureSearchTexts(entries: readonly SessionEntry[]): SearchTexts {
  const texts = new Map<string, string>();
  for (const entry of entries) {
    if (searchKind(entry) !== null) texts.set(entry.id, searchableText(entry));
  }
  return texts;
}

/**
 * The documents to index for entries as stored: each entry's searchable text (core's one
 * definition), or the text captured before offload when there is one. Entries with none are skipped.
 */
export function searchDocs(entries: readonly SessionEntry[], captured?: SearchTexts): SearchDoc[] {
  const docs: SearchDoc[] = [];
  for (const entry of entries) {
    const kind = searchKind(entry);
    if (kind === null) continue;
    // NUL cannot be stored in a PostgreSQL text column; it is no word either.
    const text = (captured?.get(entry.id) ?? searchableText(entry)).replaceAll(NUL, " ");
    if (text.trim() === "") continue;
    docs.push({ entryId: entry.id, kind, timestamp: entry.timestamp, text });
  }
  return docs;
}
