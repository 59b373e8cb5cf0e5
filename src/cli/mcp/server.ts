/** The MCP server: the read tools always, the write tools only when the source takes writes. */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolDeps } from "./tools/deps.js";
import { registerGetContext } from "./tools/get-context.js";
import { registerListBranches } from "./tools/list-branches.js";
import { registerListSessions } from "./tools/list-sessions.js";
import { registerReadEntry } from "./tools/read-entry.js";
import { registerSearchSessions } from "./tools/search-sessions.js";
import { registerWriteTools } from "./tools/write-tools.js";

const INSTRUCTIONS = `Past agent sessions kept by sessiontree (pi-compatible session trees). A session is a tree of entries: the path from the root to the leaf is what the model saw; rewinds left abandoned branches beside it.
Start with list_sessions or search_sessions; then get_context (what the model saw at an entry), list_branches (what was tried and abandoned) and read_entry (one entry whole). Session and entry ids may be shortened to a unique prefix.`;

export function createMcpServer(deps: ToolDeps, version: string): McpServer {
  const server = new McpServer(
    { name: "sessiontree", version },
    {
      instructions: `${INSTRUCTIONS}\nSessions from ${deps.source.where}.${deps.source.writer ? " Writes allowed: label_entry, checkout." : " Read-only."}`,
    },
  );
  registerListSessions(server, deps);
  registerSearchSessions(server, deps);
  registerGetContext(server, deps);
  registerListBranches(server, deps);
  registerReadEntry(server, deps);
  if (deps.source.writer) registerWriteTools(server, deps);
  return server;
}
