import type { Command } from "commander";
import type { Cli } from "../command-context.js";

/** `sessiontree fsck [TARGET...]`: checks files and says where each problem is. */
export function register(program: Command, cli: Cli): void {
  program
    .command("fsck")
    .description(
      "check session files: damaged lines (with line and byte offset), torn tails, duplicates, broken parents, cycles",
    )
    .argument("[targets...]", "sessions (id, prefix, file) or folders; default: every session of the root")
    .option("-q, --quiet", "print only files with findings")
    .action(async (targets: string[], options: { quiet?: boolean }, command: Command) => {
      const { runFsck } = await import("./fsck-run.js");
      runFsck(cli.context(command), targets, options.quiet === true);
    });
}
