import { SessionTreeError } from "../../core/errors.js";
import { queryTerms } from "../../core/search-query.js";
import { camelParts, fold, type Token, tokenize } from "./tokens.js";

/**
 * A search query (its syntax: `core/search-query.ts`) in the local index's words: words, all of
 * which must be found (in any order), and `"quoted phrases"`, whose words must follow one another.
 * A word that is several words to the index (`src/app.ts`, `read_file`) is the phrase of them; a
 * word ending in `*` is a prefix (`pars*`).
 */
export interface SearchQuery {
  clauses: QueryClause[];
}

/** One word (`words.length === 1`) or phrase, folded; `prefix`: its last word may go on. */
export interface QueryClause {
  words: string[];
  prefix: boolean;
}

/** Reads a query; one with no word at all (`""`, `--`) is an `invalid_argument` error. */
export function parseQuery(text: string): SearchQuery {
  const clauses: QueryClause[] = [];
  for (const term of queryTerms(text)) {
    const words = tokenize(term.text).map((t) => t.folded);
    if (words.length > 0) clauses.push({ words, prefix: term.prefix });
  }
  if (clauses.length === 0)
    throw new SessionTreeError("invalid_argument", `The search query "${text}" has no word to look for`, {
      details: { query: text },
    });
  return { clauses };
}

/** The token naming file `id` in the index's `scope` column: `f` and the file's id. */
export function scopeToken(id: number): string {
  return `f${id}`;
}

/** A word that is, or as a prefix could start, a scope token. */
const SCOPE_LIKE = /^f[0-9]*$/;

/**
 * The query as an FTS5 MATCH expression over the index's columns: a single word is looked for in
 * the text and in the camelCase parts, a phrase in the text. Every word is quoted, so no word is
 * read as an operator (`AND`, `NEAR`).
 *
 * A single word that cannot be a scope token is given no column filter: the `scope` column holds
 * scope tokens only, so it matches the same rows, and bm25 the same scores (scope's weight is 0).
 * It is worth it: with a column filter FTS5 reads the positions of every row holding the word to
 * count them for bm25 (`the` over 1M entries: 65 ms of CPU with the filter, 32 without).
 */
export function ftsMatch(query: SearchQuery): string {
  return query.clauses
    .map(({ words, prefix }) => {
      const quoted = `"${words.join(" ")}"${prefix ? " *" : ""}`;
      if (words.length > 1) return `body: ${quoted}`;
      return SCOPE_LIKE.test(words[0] as string) ? `{body parts}: ${quoted}` : quoted;
    })
    .join(" AND ");
}

/** The places in `text` a query matches (its words, its phrases), in text order, not overlapping. */
export function matchRanges(
  query: SearchQuery,
  text: string,
  tokens: Token[] = tokenize(text),
): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (let i = 0; i < tokens.length; i++) {
    for (const clause of query.clauses) {
      const end = clauseEndAt(clause, text, tokens, i);
      if (end >= 0) {
        ranges.push([(tokens[i] as Token).start, (tokens[end] as Token).end]);
        i = end;
        break;
      }
    }
  }
  return ranges;
}

/** The index of the last token of `clause` matched from token `i`, or -1. */
function clauseEndAt(clause: QueryClause, text: string, tokens: Token[], i: number): number {
  const { words, prefix } = clause;
  if (i + words.length > tokens.length) return -1;
  if (words.length === 1) {
    const token = tokens[i] as Token;
    const word = words[0] as string;
    if (wordMatches(token.folded, word, prefix)) return i;
    const parts = camelParts(text.slice(token.start, token.end));
    return parts.some((part) => wordMatches(fold(part), word, prefix)) ? i : -1;
  }
  for (let k = 0; k < words.length; k++) {
    const last = k === words.length - 1;
    if (!wordMatches((tokens[i + k] as Token).folded, words[k] as string, prefix && last)) return -1;
  }
  return i + words.length - 1;
}

function wordMatches(folded: string, word: string, prefix: boolean): boolean {
  return prefix ? folded.startsWith(word) : folded === word;
}
