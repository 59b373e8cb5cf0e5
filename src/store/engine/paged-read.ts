import { CURRENT_SESSION_VERSION, type SessionEntry } from "../../core/entry.js";
import { ValidationError } from "../../core/errors.js";
import { encodeLine, encodeLines } from "../../format/jsonl/encode.js";
import type { EntryPage, PagedSession } from "../store.js";
import { leafMarkerAfter } from "./jsonl-transfer.js";

/** Entries per page when the caller names none: a page is parsed in one go, so it stays short. */
export const DEFAULT_PAGE_SIZE = 200;
const MAX_PAGE_SIZE = 5000;

export function pageSizeOf(pageSize: number | undefined): number {
  if (pageSize === undefined) return DEFAULT_PAGE_SIZE;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) {
    throw new ValidationError("invalid_argument", "pageSize must be a positive integer");
  }
  return Math.min(pageSize, MAX_PAGE_SIZE);
}

/**
 * The first `entryCount` entries, `pageSize` at a time, each page read when the caller asks for
 * it (keyset by storage position: every page is one short indexed query, however deep it lies).
 * A store that holds fewer entries than its own summary counts is damaged: that is an error, not
 * a short answer.
 */
export async function* entryPages(
  readPage: (after: number, limit: number) => Promise<EntryPage>,
  entryCount: number,
  pageSize: number,
): AsyncGenerator<SessionEntry[]> {
  let after = 0;
  while (after < entryCount) {
    const { entries } = await readPage(after, Math.min(pageSize, entryCount - after));
    if (entries.length === 0) {
      throw new Error(`The store holds ${after} entries of the ${entryCount} its summary counts`);
    }
    yield entries;
    after += entries.length;
  }
}

/**
 * A paged session as pi v3 JSONL, in pieces: the header line, one run of lines per page, and the
 * leaf marker when the leaf is not the last entry (as `exportSessionJsonl` writes it whole).
 */
export async function* jsonlPieces({ summary, header, pages }: PagedSession): AsyncGenerator<string> {
  yield encodeLine({ ...header, version: CURRENT_SESSION_VERSION });
  // The marker's id must be new to the file: every id is kept, not every entry.
  const taken = new Set<string>();
  let last: SessionEntry | undefined;
  for await (const page of pages) {
    for (const entry of page) taken.add(entry.id);
    last = page[page.length - 1] ?? last;
    yield encodeLines(page);
  }
  const marker = leafMarkerAfter(last, summary.leafId, taken);
  if (marker) yield encodeLine(marker);
}
