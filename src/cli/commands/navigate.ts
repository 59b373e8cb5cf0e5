import type { Command } from "commander";
import { type Cli, resolveEntryId } from "../cli.js";

interface SessionOption {
  session?: string;
}

const SESSION_HELP = "session id, id prefix or file (default: the latest of this directory)";

/** `checkout`, `label` and `name`: the three small writes that move or annotate a session. */
export function register(program: Command, cli: Cli): void {
  program
    .command("checkout")
    .description("move the leaf to an entry; the next message continues from there (nothing is deleted)")
    .argument("<entry>", "entry id or unique prefix")
    .option("-s, --session <session>", SESSION_HELP)
    .action((entryRef: string, options: SessionOption, command: Command) => {
      const ctx = cli.context(command);
      ctx.withSession(
        options.session,
        (manager, path) => {
          const previous = manager.getLeafId();
          const id = resolveEntryId(manager.tree, entryRef);
          manager.branch(id);
          if (ctx.json)
            return ctx.printJson({
              sessionId: manager.getSessionId(),
              path,
              previousLeafId: previous,
              leafId: id,
            });
          ctx.print(`Leaf moved ${previous ?? "(none)"} → ${ctx.colors.bold(id)}`);
        },
        { write: true },
      );
    });

  program
    .command("label")
    .description("set (or with no text, clear) the label of an entry")
    .argument("<entry>", "entry id or unique prefix")
    .argument("[text...]", "the label")
    .option("-s, --session <session>", SESSION_HELP)
    .action((entryRef: string, words: string[], options: SessionOption, command: Command) => {
      const ctx = cli.context(command);
      ctx.withSession(
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

  program
    .command("name")
    .description("name a session (no text: print its name)")
    .argument("[text...]", "the new name")
    .option("-s, --session <session>", SESSION_HELP)
    .option("--clear", "remove the name")
    .action((words: string[], options: SessionOption & { clear?: boolean }, command: Command) => {
      const ctx = cli.context(command);
      ctx.withSession(
        options.session,
        (manager, path) => {
          const text = words.join(" ").trim();
          if (text || options.clear) manager.appendSessionInfo(options.clear ? "" : text);
          const name = manager.getSessionName() ?? null;
          if (ctx.json) return ctx.printJson({ sessionId: manager.getSessionId(), path, name });
          ctx.print(name ?? ctx.colors.dim("(no name)"));
        },
        { write: true },
      );
    });
}
