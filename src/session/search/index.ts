/**
 * Full-text search over local session files (docs/search.md): `searchLocal` for the CLI, the viewer
 * and the MCP server. Loads better-sqlite3: import it where a search is made, not at startup.
 */
export { dropSearchIndex } from "./index-db.js";
export { parseQuery, type SearchQuery } from "./query.js";
export {
  DEFAULT_SEARCH_LIMIT,
  RANKED_CANDIDATES,
  type SearchLocalOptions,
  type SearchLocalResult,
  searchLocal,
  searchLocalDetailed,
} from "./search-local.js";
