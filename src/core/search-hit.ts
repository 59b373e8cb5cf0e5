/**
 * One result of a full-text search across sessions, the same shape from every index (local files,
 * SQLite, PostgreSQL), the CLI's `search --json` and `GET /v1/search`.
 */
export interface SearchHit {
  sessionId: string;
  entryId: string;
  /** What kind of entry matched. */
  kind: "user" | "assistant" | "toolResult" | "custom" | "summary";
  /**
   * Text around the first match, at most about 200 characters, the matched terms between
   * `SNIPPET_MARK.open` and `SNIPPET_MARK.close`.
   */
  snippet: string;
  /** Whether the entry is on the path to its session's leaf, or on a branch the leaf left. */
  branch: "path" | "abandoned";
  /** The entry's timestamp (ISO). */
  timestamp: string;
  /** Higher is more relevant; comparable only within one search's results. */
  score: number;
  sessionName?: string;
  cwd?: string;
  /** The session file, for local searches. */
  path?: string;
}

/** How a snippet marks matched terms: plain characters a terminal or a page can style. */
export const SNIPPET_MARK = Object.freeze({ open: "«", close: "»" });

/** Results are ranked by relevance, then by recency (newer first), then by ids for a stable order. */
export function compareHits(a: SearchHit, b: SearchHit): number {
  if (a.score !== b.score) return b.score - a.score;
  if (a.timestamp !== b.timestamp) return a.timestamp < b.timestamp ? 1 : -1;
  if (a.sessionId !== b.sessionId) return a.sessionId < b.sessionId ? -1 : 1;
  return a.entryId < b.entryId ? -1 : a.entryId > b.entryId ? 1 : 0;
}
