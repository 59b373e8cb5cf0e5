import { ValidationError } from "../../core/errors.js";
import { queryTerms } from "../../core/search-query.js";
import { isSafeId } from "../../core/validate.js";
import type { SearchOptions } from "../store.js";
import { termPhrases } from "./search-words.js";

/** Longest query text accepted, and most terms in it: a search is a few words, not a document. */
export const SEARCH_QUERY_LIMITS = Object.freeze({ chars: 512, terms: 16, minTermChars: 3 });

/**
 * How many of the newest matches a search ranks: a word in most entries would otherwise rank (and
 * read) the whole history. Fewer matches are all ranked; more, the best of the newest this many.
 */
export const SEARCH_WINDOW = 1000;

/** Results per search: 20 unless asked, at most 200. */
export const SEARCH_LIMIT = Object.freeze({ fallback: 20, max: 200 });

/**
 * A search as every backend runs it. A query is terms: words and "quoted phrases"; an entry matches
 * when its searchable text holds every term as words in a row (search-words.ts): whole words or
 * identifier pieces, case-insensitively (so `Branch` finds `readBranch`, `app.ts` finds
 * `src/app.ts`, `read-flows` finds `read_flows`; `ranch` does not find `branch`).
 */
export interface SearchQuery {
  owner: string;
  /** The terms, lower-cased, each at most once; each has a word, one a word of `minTermChars`. */
  terms: string[];
  /** Per term, the word sequences that match it (`termPhrases`): the term's words, or its pieces. */
  phrases: string[][][];
  limit: number;
  /** Only this session (already known to be visible to the owner). */
  sessionId: string | null;
  includeDeleted: boolean;
}

/** Checks and normalizes a search; bad input is `invalid_argument`, before anything is read. */
export function parseSearch(owner: string, text: string, options: SearchOptions = {}): SearchQuery {
  if (typeof text !== "string" || text.trim() === "") {
    throw new ValidationError("invalid_argument", "The search query is empty");
  }
  if (text.length > SEARCH_QUERY_LIMITS.chars) {
    throw new ValidationError(
      "invalid_argument",
      `The search query is longer than ${SEARCH_QUERY_LIMITS.chars} characters`,
    );
  }
  // The one query syntax (core/search-query.ts); terms as typed, since case marks identifier
  // pieces. The stores look up no prefix: `pars*` is the word `pars`.
  const raw = queryTerms(text)
    .map((term) => term.text)
    .filter((term) => termPhrases(term).length > 0);
  const terms = [...new Set(raw.map((term) => term.toLowerCase()))];
  if (terms.length > SEARCH_QUERY_LIMITS.terms) {
    throw new ValidationError(
      "invalid_argument",
      `A search takes at most ${SEARCH_QUERY_LIMITS.terms} terms`,
    );
  }
  // One- and two-letter words are in nearly every entry: alone they would rank the whole history.
  const long = (word: string) => [...word].length >= SEARCH_QUERY_LIMITS.minTermChars;
  if (!raw.some((term) => termPhrases(term).some((phrase) => phrase.some(long)))) {
    throw new ValidationError(
      "invalid_argument",
      `A search needs at least one word of ${SEARCH_QUERY_LIMITS.minTermChars} characters or more`,
    );
  }
  const sessionId = options.sessionId ?? null;
  if (sessionId !== null && (typeof sessionId !== "string" || !isSafeId(sessionId))) {
    throw new ValidationError("invalid_argument", "sessionId is not a valid session id");
  }
  return {
    owner,
    terms,
    phrases: dedupeTerms(raw).map(termPhrases),
    limit: searchLimit(options.limit),
    sessionId,
    includeDeleted: options.includeDeleted === true,
  };
}

/** The first spelling of each term, case-insensitively. */
function dedupeTerms(terms: readonly string[]): string[] {
  const seen = new Set<string>();
  return terms.filter((term) => !seen.has(term.toLowerCase()) && seen.add(term.toLowerCase()));
}

function searchLimit(value: number | undefined): number {
  if (value === undefined) return SEARCH_LIMIT.fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ValidationError("invalid_argument", "limit must be a positive integer");
  }
  return Math.min(value, SEARCH_LIMIT.max);
}
