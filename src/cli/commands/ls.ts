import type { Command } from "commander";
import type { Cli } from "../command-context.js";
import { parseCount } from "../option-parsers.js";
import type { LsOptions } from "./ls-run.js";

/** `sessiontree ls`: the sessions of a directory (or all), newest first. */
export function register(program: Command, cli: Cli): void {
  program
    .command("ls")
    .description("list sessions of the current directory (or --all), newest first")
    .option("-a, --all", "sessions of every directory")
    .option("--cwd <dir>", "sessions of this directory instead of the current one")
    .option("-s, --search <text>", "only sessions whose name or messages contain the text (case-insensitive)")
    .option("-n, --limit <n>", "show at most n sessions", parseCount)
    .action(async (options: LsOptions, command: Command) => {
      const { runLs } = await import("./ls-run.js");
      runLs(cli.context(command), options);
    });
}
