/**
 * The words the store indexes search by, one definition for every backend (SQLite FTS5, PostgreSQL
 * tsvector, the scan of memory and jsonl): runs of letters and digits, lower-cased. An identifier
 * is a word whole (`readbranch`) and, in a second part of the indexed text, split into its pieces
 * (`read branch`: camelCase and PascalCase boundaries; `_`, `-`, `.`, `/` separate words anyway),
 * so a piece is found as a word too. See docs/stores.md, "Search in the stores".
 */

const WORD = /[\p{L}\p{N}]+/gu;

/** The words of `text`, lower-cased, in order. */
export function wordsOf(text: string): string[] {
  return Array.from(text.matchAll(WORD), (match) => match[0].toLowerCase());
}

/** `text` with a space at every camelCase boundary: `readBranch` → `read Branch`, `HTTPServer` → `HTTP Server`. */
export function splitPieces(text: string): string {
  return text.replace(/([\p{Ll}\p{N}])(?=\p{Lu})/gu, "$1 ").replace(/(\p{Lu})(?=\p{Lu}\p{Ll})/gu, "$1 ");
}

/**
 * What an index tokenizes for an entry: its words, then (only when some word has pieces) a line of
 * the same text split into pieces. Plain words separated by spaces, so a tokenizer that splits on
 * anything but letters and digits (FTS5 `unicode61`, PostgreSQL's parser) sees exactly these words.
 */
export function indexedWords(text: string): string {
  const words = wordsOf(text).join(" ");
  const split = splitPieces(text);
  return split === text ? words : `${words}\n${wordsOf(split).join(" ")}`;
}

/**
 * The ways one query term can match: its words in a row, and, when the term has camelCase pieces,
 * those pieces in a row (so `BranchFlow` finds `readBranchFlow`). Empty when the term has no word.
 */
export function termPhrases(term: string): string[][] {
  const whole = wordsOf(term);
  if (whole.length === 0) return [];
  const pieces = wordsOf(splitPieces(term));
  return pieces.join(" ") === whole.join(" ") ? [whole] : [whole, pieces];
}

/** Whether `words` holds `phrase` as consecutive words; the positions where it starts. */
export function phraseStarts(words: readonly string[], phrase: readonly string[]): number[] {
  const starts: number[] = [];
  for (let at = 0; at + phrase.length <= words.length; at++) {
    if (phrase.every((word, i) => words[at + i] === word)) starts.push(at);
  }
  return starts;
}
