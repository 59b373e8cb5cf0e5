import { defineRoute } from "../http/route.js";
import { SearchQuery, SearchResult } from "../schemas.js";
import { SESSION_ERRORS } from "./common.js";

/**
 * Full-text search over the authenticated user's sessions (the store's index: SQLite FTS5 or
 * PostgreSQL tsvector, both over words and identifier pieces; a scan on memory and jsonl). Never
 * another user's entries; a `sessionId` the user cannot see answers 404 exactly like a missing one.
 */
export const searchSessions = defineRoute({
  method: "get",
  path: "/v1/search",
  operationId: "search",
  summary: "Search every message, tool call and result, and summary: best first, then newest",
  tag: "search",
  query: SearchQuery,
  responses: {
    200: {
      description: "Hits, best first; `branch` says whether each is on its session's path",
      schema: SearchResult,
    },
    ...SESSION_ERRORS,
  },
  async handle({ query, principal, services }) {
    const options = { limit: query.limit, sessionId: query.sessionId };
    return { body: { hits: await services.store.search(principal.userId, query.q, options) } };
  },
});
