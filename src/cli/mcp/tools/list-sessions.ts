import { resolve } from "node:path";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { oneLine } from "../../io.js";
import type { SessionListing } from "../source.js";
import { guarded, toolResult } from "../tool-result.js";
import { READ_ONLY, type ToolDeps } from "./deps.js";

const input = {
  cwd: z
    .string()
    .optional()
    .describe(
      "only sessions started in this directory (absolute, or relative to the server's); default: all",
    ),
  limit: z.number().int().min(1).max(1000).default(20).describe("at most this many sessions (default 20)"),
};

/** `list_sessions`: the sessions in scope, latest activity first. */
export function registerListSessions(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "list_sessions",
    {
      title: "List past sessions",
      description:
        "List past agent sessions, most recent activity first: id, name, first user message, message and entry counts, directory, dates. Use an id (or its first 8 characters) with the other tools.",
      inputSchema: input,
      annotations: READ_ONLY,
    },
    guarded(async ({ cwd, limit }) => {
      const where = cwd === undefined ? undefined : resolve(deps.cwd, cwd);
      const sessions = await deps.source.list({ cwd: where, limit });
      const head = `${sessions.length} session(s) from ${deps.source.where}${where ? ` started in ${where}` : ""}, latest first`;
      const text = [head, ...sessions.map((s) => row(s, where === undefined))].join("\n");
      return toolResult(text, { where: deps.source.where, cwd: where ?? null, sessions });
    }, deps.log),
  );
}

function row(s: SessionListing, withCwd: boolean): string {
  const when = s.modified.slice(0, 16).replace("T", " ") || "?";
  const title = oneLine(s.name ? `${s.name} — ${s.firstMessage}` : s.firstMessage, 120);
  return `${s.id}  ${when}  ${s.messageCount} msgs  ${s.entryCount} entries  ${title}${withCwd ? `  (${s.cwd || "no directory"})` : ""}`;
}
