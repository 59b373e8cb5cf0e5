import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { type AbandonedBranch, listBranches } from "../branches.js";
import { guarded, toolResult } from "../tool-result.js";
import { READ_ONLY, sessionArg, type ToolDeps } from "./deps.js";

const input = {
  session: sessionArg,
  limit: z
    .number()
    .int()
    .min(1)
    .max(5000)
    .default(50)
    .describe("at most this many abandoned branches (default 50)"),
};

/** `list_branches`: the current path and what was abandoned along it. */
export function registerListBranches(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "list_branches",
    {
      title: "Branches of a session",
      description:
        "A session is a tree: rewinding and trying again leaves the earlier attempt as an abandoned branch. Lists the current path (root to leaf) and every abandoned branch: the path entry it parts from, its entry count, its first user message, its last entry (tipId: pass it to get_context to see that attempt) and its labels.",
      inputSchema: input,
      annotations: READ_ONLY,
    },
    guarded(async ({ session: ref, limit }) => {
      const session = await deps.source.load(ref);
      const view = listBranches(session.tree, limit);
      const lines = [
        `session ${session.id}${session.name ? ` (${session.name})` : ""} · leaf ${view.leafId ?? "(none)"}`,
        ...(session.note ? [`note: ${session.note}`] : []),
        `path: ${view.path.entryCount} entries, first message: ${view.path.firstMessage}`,
        `  at the leaf: ${view.path.leafText}`,
        ...labelLines(view.path.labels),
        `${view.abandonedCount} abandoned branch(es)${view.abandonedCount > view.abandoned.length ? `, the first ${view.abandoned.length}` : ""}:`,
        ...view.abandoned.flatMap(branchLines),
      ];
      return toolResult(lines.join("\n"), {
        sessionId: session.id,
        name: session.name,
        ...view,
        ...(session.note ? { note: session.note } : {}),
      });
    }, deps.log),
  );
}

function branchLines(branch: AbandonedBranch): string[] {
  const from = branch.partsFrom
    ? `parts from ${branch.partsFrom.id} (path entry ${branch.partsFrom.index}: ${branch.partsFrom.text})`
    : "a separate tree (its own root)";
  return [
    `- tip ${branch.tipId}, ${branch.entryCount} entries, last ${branch.lastTimestamp}; ${from}`,
    `  first message: ${branch.firstMessage}`,
    ...labelLines(branch.labels),
  ];
}

function labelLines(labels: Record<string, string>): string[] {
  const entries = Object.entries(labels);
  return entries.length === 0
    ? []
    : [`  labels: ${entries.map(([id, label]) => `${id} "${label}"`).join(", ")}`];
}
