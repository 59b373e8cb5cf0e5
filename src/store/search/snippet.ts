import { SNIPPET_MARK } from "../../core/search-hit.js";
import { phraseStarts, splitPieces, wordsOf } from "./search-words.js";

const WIDTH = 200;
const ELLIPSIS = "…";

/** A text as the scan matches it: its words, and its words split into pieces (as the indexes hold them). */
export interface ScanText {
  words: string[];
  pieces: string[] | null;
}

export function scanText(text: string): ScanText {
  const split = splitPieces(text);
  return { words: wordsOf(text), pieces: split === text ? null : wordsOf(split) };
}

/** How often one term (its alternatives, `termPhrases`) occurs in the text: words or pieces, whichever more. */
function termCount(text: ScanText, alternatives: readonly string[][]): number {
  let best = 0;
  for (const phrase of alternatives) {
    best = Math.max(best, phraseStarts(text.words, phrase).length);
    if (text.pieces) best = Math.max(best, phraseStarts(text.pieces, phrase).length);
  }
  return best;
}

/** Whether the text holds every term, as the indexes match: words in a row, whole or pieces. */
export function holdsAll(text: ScanText, phrases: readonly string[][][]): boolean {
  return phrases.every((alternatives) => termCount(text, alternatives) > 0);
}

/** How many times the terms occur in the text: the scan's relevance. */
export function occurrences(text: ScanText, phrases: readonly string[][][]): number {
  return phrases.reduce((sum, alternatives) => sum + termCount(text, alternatives), 0);
}

/**
 * About 200 characters around the first match, every match in it between `SNIPPET_MARK`s: the
 * snippet of every store, cut from the entry's text for the final hits only. A match is the term's
 * words with anything but letters and digits between them (so `read flows` marks `read-flows`).
 */
export function markSnippet(text: string, phrases: readonly string[][][]): string {
  const pattern = matchPattern(phrases);
  const all = pattern ? [...text.matchAll(pattern)] : [];
  const first = all[0]?.index;
  const start = first === undefined ? 0 : Math.max(0, first - WIDTH / 4);
  const end = Math.min(text.length, start + WIDTH);
  let out = start > 0 ? ELLIPSIS : "";
  let at = start;
  for (const match of all) {
    const from = match.index;
    const to = from + match[0].length;
    if (from < at || to > end) continue;
    out += `${text.slice(at, from)}${SNIPPET_MARK.open}${match[0]}${SNIPPET_MARK.close}`;
    at = to;
  }
  out += text.slice(at, end) + (end < text.length ? ELLIPSIS : "");
  return out.replace(/\s+/g, " ");
}

/** One case-insensitive pattern for every alternative of every term, longest first. */
function matchPattern(phrases: readonly string[][][]): RegExp | null {
  const sources = phrases
    .flat()
    .filter((phrase) => phrase.length > 0)
    .map((phrase) =>
      phrase.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[^\\p{L}\\p{N}]*"),
    )
    .sort((a, b) => b.length - a.length);
  return sources.length === 0 ? null : new RegExp(sources.join("|"), "giu");
}

/**
 * A BM25-style relevance of `text` among `candidates` texts of the same search: per term, how often
 * it occurs (any alternative), saturated and normalized by length. No inverse document frequency:
 * every candidate holds every term, so it would only weigh the terms against each other.
 */
export function relevance(text: string, patterns: readonly RegExp[], averageLength: number): number {
  const k1 = 1.2;
  const b = 0.75;
  const norm = k1 * (1 - b + (b * text.length) / Math.max(1, averageLength));
  let score = 0;
  for (const pattern of patterns) {
    const tf = text.match(pattern)?.length ?? 0;
    score += (tf * (k1 + 1)) / (tf + norm);
  }
  return Math.round(score * 1e6) / 1e6;
}

/** One global pattern per term (`relevance`), made once per search. */
export function termPatterns(phrases: readonly string[][][]): RegExp[] {
  return phrases.map((alternatives) => matchPattern([alternatives])).filter((p): p is RegExp => p !== null);
}
