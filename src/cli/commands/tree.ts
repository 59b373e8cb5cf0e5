import type { Command } from "commander";
import type { Cli } from "../command-context.js";
import { parseCount } from "../option-parsers.js";
import { SESSION_REF_HELP } from "../resolve.js";
import type { TreeOptions } from "./tree-run.js";

/** `sessiontree tree`: a session's whole tree, every branch. */
export function register(program: Command, cli: Cli): void {
  program
    .command("tree")
    .description("draw a session's whole tree: branches, labels, the current leaf")
    .argument("[session]", SESSION_REF_HELP)
    .option("--full", "do not collapse long runs of plain entries")
    .option("--collapse <n>", "collapse runs of more than n plain entries (default 8)", parseCount)
    .action(async (ref: string | undefined, options: TreeOptions, command: Command) => {
      const { runTree } = await import("./tree-run.js");
      await runTree(cli.context(command), ref, options);
    });
}
