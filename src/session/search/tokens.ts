/**
 * How the local search index cuts text into words: runs of letters and digits (what SQLite's
 * `unicode61` tokenizer, which the index uses, takes as a token), compared case- and
 * accent-insensitively. `src/app.ts` is the words `src app ts` and `read_file` is `read file`, so a
 * query for either is the phrase of its words; a camelCase word (`parseArgs`) is also indexed by its
 * parts (`parse args`), so `args` finds it. The same rules mark the matched words in a snippet.
 */

/** A word of a text: where it is, and its folded form. */
export interface Token {
  start: number;
  end: number;
  folded: string;
}

const WORD = /[\p{L}\p{N}\p{Co}]+/gu;
const MARKS = /\p{M}/gu;
/** Words are letters and digits: one without a byte over 0x7f needs no Unicode folding. */
const NON_ASCII = /[^\x20-\x7e]/;
/** A lower-to-upper change (`parseArgs`) or an acronym before a word (`HTTPServer`). */
const CAMEL_EDGE = /[a-z][A-Z]|[A-Z]{2}[a-z]/;
const CAMEL_PART = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;

/** Lower case without accents: `Über` → `uber`, as the index compares words. */
export function fold(word: string): string {
  if (!NON_ASCII.test(word)) return word.toLowerCase();
  return word.normalize("NFD").replace(MARKS, "").toLowerCase();
}

/** The words of `text`, with their places. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const match of text.matchAll(WORD)) {
    const start = match.index;
    tokens.push({ start, end: start + match[0].length, folded: fold(match[0]) });
  }
  return tokens;
}

/** The parts of a camelCase word (`parseArgs` → `parse`, `Args`), or [] for any other word. */
export function camelParts(word: string): string[] {
  if (!CAMEL_EDGE.test(word)) return [];
  return word.match(CAMEL_PART) ?? [];
}

/**
 * The extra words indexed beside a text: the parts of each camelCase word in it, so a part alone
 * finds the word. Empty for most texts.
 */
export function camelPartsText(text: string): string {
  const parts: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const split = camelParts(match[0]);
    if (split.length > 1) parts.push(split.join(" "));
  }
  return parts.join(" ");
}
