import type { Command } from "commander";
import type { Cli } from "../command-context.js";
import { ENTRY_REF_HELP, resolveEntryId, SESSION_REF_HELP } from "../resolve.js";

/** `sessiontree checkout ENTRY`: moves the leaf; nothing is deleted, and it survives restarts. */
export function register(program: Command, cli: Cli): void {
  program
    .command("checkout")
    .description("move the leaf to an entry; the next message continues from there (nothing is deleted)")
    .argument("<entry>", ENTRY_REF_HELP)
    .option("-s, --session <session>", SESSION_REF_HELP)
    .action(async (entryRef: string, options: { session?: string }, command: Command) => {
      const ctx = cli.context(command);
      const { explainEntryNotFound } = await import("../session-id-guard.js");
      await ctx.withSession(
        options.session,
        (manager, path) => {
          const previous = manager.getLeafId();
          let id: string;
          try {
            id = resolveEntryId(manager.tree, entryRef);
          } catch (error) {
            throw explainEntryNotFound(ctx.location, entryRef, error);
          }
          manager.branch(id);
          if (ctx.json)
            return ctx.printJson({
              sessionId: manager.getSessionId(),
              path,
              previousLeafId: previous,
              leafId: id,
            });
          ctx.print(`Leaf moved ${previous ?? "(none)"} → ${ctx.colors.bold(id)}`);
          ctx.printWrittenTo(manager.getSessionId(), path);
        },
        { write: true },
      );
    });
}
