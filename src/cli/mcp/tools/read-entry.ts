import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { resolveEntryId } from "../../resolve.js";
import { guarded, toolResult } from "../tool-result.js";
import { entryArg, READ_ONLY, sessionArg, type ToolDeps } from "./deps.js";

const input = { session: sessionArg, entry: entryArg };

/** `read_entry`: one entry whole, as stored. */
export function registerReadEntry(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "read_entry",
    {
      title: "Read one entry",
      description:
        "One entry of a session whole, as JSON (a message with every content block, a tool call's arguments, a tool result's full output, a summary), with its label, its children and whether it is on the current path.",
      inputSchema: input,
      annotations: READ_ONLY,
    },
    guarded(async ({ session: ref, entry: entryRef }) => {
      const session = await deps.source.load(ref);
      const tree = session.tree;
      const id = resolveEntryId(tree, entryRef);
      const entry = tree.requireEntry(id);
      const facts = {
        sessionId: session.id,
        label: tree.getLabel(id) ?? null,
        onPath: tree.getBranch().some((e) => e.id === id),
        isLeaf: tree.getLeafId() === id,
        childIds: tree.getChildren(id).map((child) => child.id),
      };
      const text = [
        `entry ${id} of session ${session.id}: ${facts.isLeaf ? "the leaf" : facts.onPath ? "on the current path" : "on an abandoned branch"}${facts.label ? `, label "${facts.label}"` : ""}, ${facts.childIds.length} child(ren)`,
        ...(session.note ? [`note: ${session.note}`] : []),
        JSON.stringify(entry, null, 2),
      ].join("\n");
      return toolResult(text, { ...facts, entry });
    }, deps.log),
  );
}
