import type { Command } from "commander";
import type { Cli } from "../command-context.js";
import { SESSION_REF_HELP } from "../resolve.js";
import type { ForkOptions } from "./fork-run.js";

/** `sessiontree fork` (`extract`): one branch, or the whole tree, as a new session. */
export function register(program: Command, cli: Cli): void {
  program
    .command("fork")
    .alias("extract")
    .description("copy one branch (root → leaf, or → --at) into a new session; --whole copies every branch")
    .argument("[session]", SESSION_REF_HELP)
    .option("--at <entry>", "end the extracted branch at this entry instead of the leaf")
    .option("--whole", "copy the whole tree, every branch, instead of one path")
    .option("--cwd <dir>", "the new session belongs to this directory (default: the source's)")
    .action(async (ref: string | undefined, options: ForkOptions, command: Command) => {
      const { runFork } = await import("./fork-run.js");
      runFork(cli.context(command), ref, options);
    });
}
