import type { Command } from "commander";
import type { Cli } from "../command-context.js";
import { SESSION_REF_HELP } from "../resolve.js";

interface NameOptions {
  session?: string;
  clear?: boolean;
}

/** `sessiontree name [TEXT]`: names the session; no text prints the name, `--clear` removes it. */
export function register(program: Command, cli: Cli): void {
  program
    .command("name")
    .description("name a session (no text: print its name)")
    .argument("[text...]", "the new name")
    .option("-s, --session <session>", SESSION_REF_HELP)
    .option("--clear", "remove the name")
    .action(async (words: string[], options: NameOptions, command: Command) => {
      const ctx = cli.context(command);
      await ctx.withSession(
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
