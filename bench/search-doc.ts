/**
 * The search part of docs/benchmarks.md (issue 18): its target lines in the targets list and its
 * section. Measuring it takes long (corpora and indexes at 1M entries), so a run that leaves it out
 * (`npm run bench -- --skip-search`) keeps the last one measured, and `npm run bench:search-suite`
 * (bench/search-run.ts) measures it alone and puts it in place, leaving every other figure as it is.
 */
import type { SearchSuiteResult } from "./search-suite.js";

const SEARCH_HEADING = "## Search and stats";
/** The heading that follows the search section in the document bench/run.ts writes. */
const NEXT_HEADING = "## How to read it";
const TARGET_LINE = /^- (✅|❌) search, /;
const TARGETS_HEADING = "## Targets (";

/** The search targets and section of a document, or null when it has none. */
export function searchOfDoc(doc: string): SearchSuiteResult | null {
  const lines = doc.split("\n");
  const start = lines.indexOf(SEARCH_HEADING);
  if (start < 0) return null;
  const end = lines.indexOf(NEXT_HEADING, start);
  if (end < 0) return null;
  const markdown = lines.slice(start + 2, end);
  while (markdown.length > 0 && markdown[markdown.length - 1] === "") markdown.pop();
  return { targets: lines.filter((line) => TARGET_LINE.test(line)), markdown };
}

/**
 * The document with its search targets and section replaced by `search`'s: the target lines go
 * where the old ones were (else after the last target), the section before "How to read it".
 */
export function withSearch(doc: string, search: SearchSuiteResult): string {
  const old = searchOfDoc(doc);
  let lines = doc.split("\n");
  if (old) {
    const start = lines.indexOf(SEARCH_HEADING);
    lines = [...lines.slice(0, start), ...lines.slice(lines.indexOf(NEXT_HEADING, start))];
  }
  const firstTarget = lines.findIndex((line) => TARGET_LINE.test(line));
  lines = lines.filter((line) => !TARGET_LINE.test(line));
  lines.splice(firstTarget >= 0 ? firstTarget : endOfTargets(lines), 0, ...search.targets);
  const next = lines.indexOf(NEXT_HEADING);
  if (next < 0) throw new Error(`docs/benchmarks.md has no "${NEXT_HEADING}" section`);
  lines.splice(next, 0, SEARCH_HEADING, "", ...search.markdown, "");
  return lines.join("\n");
}

/** Where the targets list ends: after its last line, before the blank line and the next heading. */
function endOfTargets(lines: string[]): number {
  const heading = lines.findIndex((line) => line.startsWith(TARGETS_HEADING));
  const next = lines.findIndex((line, at) => at > heading && line.startsWith("## "));
  if (heading < 0 || next < 0)
    throw new Error("docs/benchmarks.md has no targets list to put the search targets in");
  let end = next;
  while (end > heading + 1 && lines[end - 1] === "") end--;
  return end;
}
