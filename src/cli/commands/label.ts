import type { Command } from "commander";
import type { Cli } from "../command-context.js";
import { ENTRY_REF_HELP, resolveEntryId, SESSION_REF_HELP } from "../resolve.js";

/** `sessiontree label ENTRY [TEXT]`: sets an entry's label; no text clears it. */
export function register(program: Command, cli: Cli): void {
  program
    .command("label")
    .description("set (or with no text, clear) the label of an entry")
    .argument("<entry>", ENTRY_REF_HELP)
    .argument("[text...]", "the label")
    .option("-s, --session <session>", SESSION_REF_HELP)
    .action(async (entryRef: string, words: string[], options: { session?: string }, command: Command) => {
      const ctx = cli.context(command);
      await ctx.withSession(
        options.session,
        (manager, path) => {
          const id = resolveEntryId(manager.tree, entryRef);
          const text = words.join(" ").trim();
          const labelEntryId = manager.appendLabelChange(id, text || undefined);
          if (ctx.json)
            return ctx.printJson({
              sessionId: manager.getSessionId(),
              path,
              targetId: id,
              label: text || null,
              entryId: labelEntryId,
            });
          ctx.print(text ? `Labelled ${id}: ${ctx.colors.bold(text)}` : `Cleared the label of ${id}`);
        },
        { write: true },
      );
    });
}
