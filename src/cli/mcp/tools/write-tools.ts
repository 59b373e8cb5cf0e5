/**
 * The write tools, registered only with `--allow-writes`: a label on an entry, and moving the leaf.
 * Both append (a label entry, a leaf marker); nothing is ever deleted or rewritten.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { SessionTreeError } from "../../../core/errors.js";
import { resolveEntryId } from "../../resolve.js";
import type { SessionWriter } from "../source.js";
import { guarded, toolResult } from "../tool-result.js";
import { entryArg, sessionArg, type ToolDeps } from "./deps.js";

const WRITES = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

export function registerWriteTools(server: McpServer, deps: ToolDeps): void {
  const writer = deps.source.writer;
  if (!writer) throw new SessionTreeError("read_only", "This source takes no writes");
  registerLabel(server, deps, writer);
  registerCheckout(server, deps, writer);
}

function registerLabel(server: McpServer, deps: ToolDeps, writer: SessionWriter): void {
  const input = {
    session: sessionArg,
    entry: entryArg,
    label: z.string().max(1024).optional().describe("the label; empty or left out clears it"),
  };
  server.registerTool(
    "label_entry",
    {
      title: "Label an entry",
      description:
        "Set a label on an entry of a session (a bookmark such as `tests green`), or clear it with no label. Appends a label entry; changes nothing else.",
      inputSchema: input,
      annotations: WRITES,
    },
    guarded(async ({ session: ref, entry, label }) => {
      const session = await deps.source.load(ref);
      const id = resolveEntryId(session.tree, entry);
      const text = label?.trim() || undefined;
      await writer.setLabel(session, id, text);
      return toolResult(
        text ? `Labelled ${id} of ${session.id}: ${text}` : `Cleared the label of ${id} of ${session.id}`,
        {
          sessionId: session.id,
          entryId: id,
          label: text ?? null,
        },
      );
    }, deps.log),
  );
}

function registerCheckout(server: McpServer, deps: ToolDeps, writer: SessionWriter): void {
  server.registerTool(
    "checkout",
    {
      title: "Move a session's leaf",
      description:
        "Move a session's leaf to an entry: when the session is resumed, the conversation continues from there (the model sees that entry's context). Nothing is deleted; the branch left stays in the tree.",
      inputSchema: { session: sessionArg, entry: entryArg },
      annotations: WRITES,
    },
    guarded(async ({ session: ref, entry }) => {
      const session = await deps.source.load(ref);
      const id = resolveEntryId(session.tree, entry);
      const previous = session.tree.getLeafId();
      await writer.checkout(session, id);
      return toolResult(`Leaf of ${session.id} moved ${previous ?? "(none)"} → ${id}`, {
        sessionId: session.id,
        previousLeafId: previous,
        leafId: id,
      });
    }, deps.log),
  );
}
