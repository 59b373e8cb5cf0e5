import type { Command } from "commander";
import type { Cli } from "../command-context.js";
import { ENTRY_REF_HELP, resolveEntryId, SESSION_REF_HELP } from "../resolve.js";

interface LabelOptions {
  session?: string;
  force?: boolean;
}

/** `sessiontree label ENTRY [TEXT]`: sets an entry's label; no text clears it. */
export function register(program: Command, cli: Cli): void {
  program
    .command("label")
    .description("set (or with no text, clear) the label of an entry")
    .argument("<entry>", ENTRY_REF_HELP)
    .argument("[text...]", "the label")
    .option("-s, --session <session>", SESSION_REF_HELP)
    .option("-f, --force", "accept a label that looks like a session id")
    .action(async (entryRef: string, words: string[], options: LabelOptions, command: Command) => {
      const ctx = cli.context(command);
      const text = words.join(" ").trim();
      const guard = await import("../session-id-guard.js");
      if (text && !options.force)
        guard.refuseSessionIdAsText(ctx.location, text, { noun: "label", command: `label ${entryRef}` });
      await ctx.withSession(
        options.session,
        (manager, path) => {
          let id: string;
          try {
            id = resolveEntryId(manager.tree, entryRef);
          } catch (error) {
            throw guard.explainEntryNotFound(ctx.location, entryRef, error);
          }
          // Under the file's leaf as written: another process's last entry stays on the path.
          const label = text || undefined;
          const labelEntryId = manager.appendDraftAtFileLeaf({ type: "label", targetId: id, label }).id;
          if (ctx.json)
            return ctx.printJson({
              sessionId: manager.getSessionId(),
              path,
              targetId: id,
              label: text || null,
              entryId: labelEntryId,
            });
          ctx.print(text ? `Labelled ${id}: ${ctx.colors.bold(text)}` : `Cleared the label of ${id}`);
          ctx.printWrittenTo(manager.getSessionId(), path);
        },
        { write: true },
      );
    });
}
