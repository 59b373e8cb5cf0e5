import type { Command } from "commander";
import type { Cli } from "../command-context.js";
import { SESSION_REF_HELP } from "../resolve.js";
import { terminalSafe } from "../terminal-text.js";

interface NameOptions {
  session?: string;
  clear?: boolean;
  force?: boolean;
}

/**
 * `sessiontree name [TEXT]`: names the session; no text prints the name, `--clear` removes it.
 * A write says which session and file it went to; a name that looks like a session id is refused
 * unless forced (`name ffae` most likely meant the session ffae…).
 */
export function register(program: Command, cli: Cli): void {
  program
    .command("name")
    .description("name a session (no text: print its name)")
    .argument("[text...]", "the new name")
    .option("-s, --session <session>", SESSION_REF_HELP)
    .option("--clear", "remove the name")
    .option("-f, --force", "accept a name that looks like a session id")
    .action(async (words: string[], options: NameOptions, command: Command) => {
      const ctx = cli.context(command);
      const text = words.join(" ").trim();
      if (text && !options.force) {
        const { refuseSessionIdAsText } = await import("../session-id-guard.js");
        refuseSessionIdAsText(ctx.location, text, { noun: "name", command: "name" });
      }
      const write = Boolean(text || options.clear);
      await ctx.withSession(
        options.session,
        (manager, path) => {
          // Under the file's leaf as written: another process's last entry stays on the path.
          if (write) manager.appendDraftAtFileLeaf({ type: "session_info", name: options.clear ? "" : text });
          const name = manager.getSessionName() ?? null;
          const sessionId = manager.getSessionId();
          if (ctx.json) return ctx.printJson({ sessionId, path, name, written: write });
          if (!write) return ctx.print(name === null ? ctx.colors.dim("(no name)") : terminalSafe(name));
          ctx.print(
            name ? `Named the session ${ctx.colors.bold(terminalSafe(name))}` : "Cleared the session's name",
          );
          ctx.printWrittenTo(sessionId, path);
        },
        { write },
      );
    });
}
