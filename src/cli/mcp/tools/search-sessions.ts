import { resolve } from "node:path";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { SessionTreeError } from "../../../core/errors.js";
import type { SessionSearch } from "../source.js";
import { guarded, toolResult } from "../tool-result.js";
import { READ_ONLY, type ToolDeps } from "./deps.js";

/** The most hits one call answers: the service's largest page, so both sources take the same limits. */
const MAX_HITS = 200;

const input = {
  query: z
    .string()
    .min(1)
    .describe(
      'words that must all be in the entry (whole words, any case; a camelCase word also by its parts), "quoted phrases", prefix* — e.g. `flaky login "exit code 1"`',
    ),
  cwd: z.string().optional().describe("only sessions started in this directory; default: all"),
  session: z.string().min(1).optional().describe("only this session (id, id prefix or path)"),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_HITS)
    .default(20)
    .describe(`at most this many hits, best first (default 20, at most ${MAX_HITS})`),
};

/** `search_sessions`: entries of past sessions found by the full-text index (docs/search.md). */
export function registerSearchSessions(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "search_sessions",
    {
      title: "Search past sessions",
      description:
        'Full-text search of past sessions: user and assistant messages, tool calls (name and arguments) and their results, summaries (not thinking). The query is words that must all be found (whole words, any case; `parseArgs` and `args` both find parseArgs), "quoted phrases" and prefix*; ranked by relevance, then newest. Each hit names its session and entry (pass them to get_context or read_entry), says whether the entry is on the session\'s current path or on an abandoned branch, and shows a snippet with the matches between « ».',
      inputSchema: input,
      annotations: READ_ONLY,
    },
    guarded(async ({ query, cwd, session, limit }) => {
      if (query.trim() === "")
        throw new SessionTreeError("invalid_argument", "The query has no words to search for");
      const where = cwd === undefined ? undefined : resolve(deps.cwd, cwd);
      const found = await deps.source.search(query, { cwd: where, session, limit });
      return toolResult(searchText(query, limit, found), { query, ...found });
    }, deps.log),
  );
}

function searchText(query: string, limit: number, { hits, skipped, note }: SessionSearch): string {
  const more = hits.length === limit ? ` (the best ${limit}; there may be more: raise limit)` : "";
  const lines = [`${hits.length} hit(s) for "${query}"${more}`];
  if (note !== undefined) lines.push(`(${note})`);
  for (const hit of hits)
    lines.push(
      `${hit.sessionId} ${hit.entryId} [${hit.kind}, ${hit.branch === "path" ? "on the path" : "abandoned branch"}] ${hit.timestamp}`,
      `  ${hit.snippet}`,
    );
  for (const file of skipped) lines.push(`(not searched, not a session file: ${file})`);
  return lines.join("\n");
}
