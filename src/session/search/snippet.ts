import { SNIPPET_MARK } from "../../core/search-hit.js";
import { matchRanges, type SearchQuery } from "./query.js";

/** About how long a snippet is (SearchHit: "at most about 200 characters"). */
const SNIPPET_CHARS = 200;
/** How much text is shown before the first match. */
const LEAD_CHARS = 60;

/**
 * The text around the first place `query` matches `text`, on one line, with every match inside
 * between `SNIPPET_MARK`s, `…` where it was cut. A text the query does not visibly match (the index
 * folds a few characters differently) gives its beginning.
 */
export function makeSnippet(query: SearchQuery, text: string): string {
  const ranges = matchRanges(query, text);
  const first = ranges[0];
  let start = first ? Math.max(0, first[0] - LEAD_CHARS) : 0;
  // Start at a word boundary, not in the middle of one.
  if (start > 0) {
    const space = text.slice(start, first ? first[0] : start).search(/\s/);
    if (space >= 0) start += space + 1;
  }
  const end = Math.min(text.length, start + SNIPPET_CHARS);
  let out = "";
  let at = start;
  for (const [from, to] of ranges) {
    if (from < start || to > end) continue;
    out += flat(text.slice(at, from)) + SNIPPET_MARK.open + flat(text.slice(from, to)) + SNIPPET_MARK.close;
    at = to;
  }
  out += flat(text.slice(at, end));
  return `${start > 0 ? "…" : ""}${out.trim()}${end < text.length ? "…" : ""}`;
}

function flat(text: string): string {
  return text.replace(/\s+/g, " ");
}
