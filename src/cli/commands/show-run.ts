import type { CommandContext } from "../command-context.js";
import { renderContext } from "../render/context.js";
import { resolveEntryId } from "../resolve.js";
import { terminalSafe } from "../terminal-text.js";
import { readablePath } from "./file-kind.js";

export interface ShowOptions {
  at?: string;
  full?: boolean;
}

/** Prints the projected context as a transcript (or `--json`); its warnings go to stderr. */
export async function runShow(
  ctx: CommandContext,
  ref: string | undefined,
  options: ShowOptions,
): Promise<void> {
  const { path, at, context, sessionId, leafId } = await ctx.withSession(
    readablePath(ctx, ref),
    (manager, path) => {
      const leafId = manager.getLeafId();
      // The leaf's context needs only its path: a session opened through its sidecar index answers
      // it from the lines it read. An entry given by `--at` is looked up in the whole tree.
      if (options.at === undefined)
        return {
          path,
          at: leafId,
          context: manager.buildSessionContext(),
          sessionId: manager.getSessionId(),
          leafId,
        };
      const at = resolveEntryId(manager.tree, options.at);
      return {
        path,
        at,
        context: manager.buildSessionContextAt(at),
        sessionId: manager.getSessionId(),
        leafId,
      };
    },
  );
  if (ctx.json) {
    ctx.printJson({ sessionId, path, at, leafId, ...context });
    return;
  }
  const c = ctx.colors;
  // A writer other than pi may leave an assistant message's provider or model out: show what is known.
  const model = context.model
    ? [context.model.provider, context.model.modelId].filter(Boolean).join("/") || "unknown"
    : "none";
  // The header, a blank line, the transcript (or that there is none): one array, joined once and
  // written at once (a transcript of a long session is hundreds of kilobytes).
  const lines = [
    c.dim(
      terminalSafe(
        `session ${sessionId} · at ${at ?? "(before the first entry)"} · model ${model} · thinking ${context.thinkingLevel} · ${context.messages.length} messages`,
      ),
    ),
    "",
  ];
  renderContext(context, { colors: c, width: ctx.io.columns, maxLines: options.full ? 0 : 12 }, lines);
  if (lines.length === 2) lines.push(c.dim("(no messages)"));
  // A last empty line: the join ends with a newline, and the text is not copied once more to add one.
  lines.push("");
  ctx.io.out(lines.join("\n"));
  for (const warning of context.warnings) ctx.io.err(`${c.yellow("warning")} ${warning.message}\n`);
}
