/**
 * How a search query is read, one syntax for every index (local files, SQLite, PostgreSQL, the
 * scan of the memory and jsonl stores): terms separated by white space, all of which must be found.
 * A term is a bare word (`parseArgs`, `src/app.ts`, `pars*`) or a `"quoted phrase"`; a quote left
 * open runs to the end of the query. A bare word ending in `*` asks for a prefix, where the index
 * can look one up. What a term's words are is the index's own rule (the local index folds accents,
 * the stores split identifiers into pieces), so terms are returned as typed.
 */

/** One term as typed: its text (never holding a `"`), and how it was written. */
export interface QueryTerm {
  text: string;
  /** Written between quotes: its words must follow one another. */
  quoted: boolean;
  /** A bare word ending in `*`: its last word may go on. */
  prefix: boolean;
}

/** A quoted phrase (closed, or open to the end), or a run of anything but white space and quotes. */
const TERM = /"([^"]*)"?|([^\s"]+)/g;

/** The terms of `text`, in order; empty phrases (`""`) are left out. */
export function queryTerms(text: string): QueryTerm[] {
  const terms: QueryTerm[] = [];
  for (const match of text.matchAll(TERM)) {
    const quoted = match[1];
    if (quoted !== undefined) {
      const phrase = quoted.trim();
      if (phrase !== "") terms.push({ text: phrase, quoted: true, prefix: false });
    } else {
      const word = match[2] as string;
      terms.push({ text: word, quoted: false, prefix: word.endsWith("*") });
    }
  }
  return terms;
}
