import { resolve } from "node:path";
import type { Command } from "commander";
import { NotFoundError } from "../../core/errors.js";
import { sessionDirFor } from "../../file/paths.js";
import { peekHeader } from "../../session/locate.js";
import { SessionManager } from "../../session/session-manager.js";
import { type Cli, resolveEntryId } from "../cli.js";

interface ForkOptions {
  at?: string;
  whole?: boolean;
  cwd?: string;
}

export function register(program: Command, cli: Cli): void {
  program
    .command("fork")
    .alias("extract")
    .description("copy one branch (root → leaf, or → --at) into a new session; --whole copies every branch")
    .argument("[session]", "session id, id prefix or file (default: the latest of this directory)")
    .option("--at <entry>", "end the extracted branch at this entry instead of the leaf")
    .option("--whole", "copy the whole tree, every branch, instead of one path")
    .option("--cwd <dir>", "the new session belongs to this directory (default: the source's)")
    .action((ref: string | undefined, options: ForkOptions, command: Command) => {
      const ctx = cli.context(command);
      const source = ctx.sessionPath(ref);
      const root = ctx.location.root;
      const cwd = options.cwd ? resolve(ctx.io.cwd, options.cwd) : (peekHeader(source)?.cwd ?? ctx.io.cwd);
      // New sessions go to the location's folder for their directory, wherever the source was.
      const dir = sessionDirFor(root, cwd, ctx.location.layout);
      const created = options.whole
        ? SessionManager.forkFrom(source, cwd, dir, { root })
        : SessionManager.open(source, dir, cwd, { root });
      try {
        if (!options.whole) {
          const at =
            options.at === undefined ? created.getLeafId() : resolveEntryId(created.tree, options.at);
          if (at === null)
            throw new NotFoundError("entry_not_found", "The session is empty: there is no branch to extract");
          created.createBranchedSession(at);
        }
      } catch (error) {
        created.close();
        throw error;
      }
      const result = {
        sourcePath: source,
        sessionId: created.getSessionId(),
        path: created.getSessionFile(),
        cwd,
        entryCount: created.getEntries().length,
        leafId: created.getLeafId(),
      };
      created.close();
      if (ctx.json) return ctx.printJson(result);
      ctx.print(
        `New session ${ctx.colors.bold(result.sessionId)} (${result.entryCount} entries)`,
        `  ${result.path}`,
      );
    });
}
