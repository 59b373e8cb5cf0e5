import type { Command } from "commander";
import { type Cli, resolveEntryId } from "../cli.js";
import { renderContext } from "../render/context.js";

interface ShowOptions {
  at?: string;
  full?: boolean;
}

export function register(program: Command, cli: Cli): void {
  program
    .command("show")
    .alias("context")
    .description("print the context the model sees from the leaf (or from any entry with --at)")
    .argument("[session]", "session id, id prefix or file (default: the latest of this directory)")
    .option("--at <entry>", "the context as if the leaf were this entry (id or unique prefix)")
    .option("--full", "do not shorten tool results and thinking")
    .action((ref: string | undefined, options: ShowOptions, command: Command) => {
      const ctx = cli.context(command);
      const { path, at, context, sessionId, leafId } = ctx.withSession(ref, (manager, path) => {
        const at = options.at === undefined ? manager.getLeafId() : resolveEntryId(manager.tree, options.at);
        const context = manager.buildSessionContextAt(at);
        return { path, at, context, sessionId: manager.getSessionId(), leafId: manager.getLeafId() };
      });
      if (ctx.json) return ctx.printJson({ sessionId, path, at, leafId, ...context });
      const c = ctx.colors;
      const model = context.model ? `${context.model.provider}/${context.model.modelId}` : "none";
      ctx.print(
        c.dim(
          `session ${sessionId} · at ${at ?? "(before the first entry)"} · model ${model} · thinking ${context.thinkingLevel} · ${context.messages.length} messages`,
        ),
        "",
      );
      const lines = renderContext(context, {
        colors: c,
        width: ctx.io.columns,
        maxLines: options.full ? 0 : 12,
      });
      ctx.io.out(lines.length > 0 ? `${lines.join("\n")}\n` : `${c.dim("(no messages)")}\n`);
      for (const warning of context.warnings) ctx.io.err(`${c.yellow("warning")} ${warning.message}\n`);
    });
}
