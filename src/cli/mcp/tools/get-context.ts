import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { projectContext } from "../../../core/context.js";
import { resolveEntryId } from "../../resolve.js";
import { contextText } from "../context-text.js";
import { guarded, toolResult } from "../tool-result.js";
import { entryArg, READ_ONLY, sessionArg, type ToolDeps } from "./deps.js";

const input = {
  session: sessionArg,
  entry: entryArg
    .optional()
    .describe(
      "the entry to stand at (id or unique prefix); default: the session's leaf, where it stands now",
    ),
  maxChars: z
    .number()
    .int()
    .min(500)
    .max(2_000_000)
    .default(20_000)
    .describe(
      "budget of characters (default 20000): over it, the first message and the latest that fit are shown, the middle left out",
    ),
  start: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("show messages from this index on, as many as fit (to page through a long context)"),
  full: z
    .boolean()
    .default(false)
    .describe("tool results and thinking whole, not cut to their first 12 lines"),
};

/** `get_context`: what the model saw at an entry (pi's context projection). */
export function registerGetContext(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "get_context",
    {
      title: "Context at an entry",
      description:
        "The messages the model sees when the session stands at an entry (by default its current leaf): the path from the root to that entry, after compaction, exactly as the agent builds its context. Rendered as a transcript, each message with the entry it came from; long contexts are cut to maxChars (page with start).",
      inputSchema: input,
      annotations: READ_ONLY,
    },
    guarded(async ({ session: ref, entry, maxChars, start, full }) => {
      const session = await deps.source.load(ref);
      const tree = session.tree;
      const at = entry === undefined ? tree.getLeafId() : resolveEntryId(tree, entry);
      const context = projectContext(tree.getBranchSlots(at));
      const rendered = contextText(context, { maxChars, start, full });
      const model = context.model ? `${context.model.provider}/${context.model.modelId}` : "none";
      const head = [
        `session ${session.id} · at ${at ?? "(before the first entry)"}${at === tree.getLeafId() ? " (the leaf)" : ""} · model ${model} · thinking ${context.thinkingLevel} · ${context.messages.length} messages`,
        ...(session.note ? [`note: ${session.note}`] : []),
        ...context.warnings.map((w) => `warning: ${w.message}`),
        "",
      ];
      const text = context.messages.length === 0 ? "(no messages)" : rendered.text;
      return toolResult(head.join("\n") + text, {
        sessionId: session.id,
        at,
        leafId: tree.getLeafId(),
        model: context.model,
        thinkingLevel: context.thinkingLevel,
        messageCount: context.messages.length,
        compaction: context.compaction,
        warnings: context.warnings.map((w) => w.message),
        messages: rendered.messages,
        omitted: rendered.omitted,
        nextStart: rendered.nextStart,
        ...(session.note ? { note: session.note } : {}),
      });
    }, deps.log),
  );
}
