import type { Command } from "commander";
import type { Cli } from "../command-context.js";
import { parseCount } from "../option-parsers.js";
import type { LsOptions } from "./ls-run.js";

/** `sessiontree ls`: the sessions of a directory (or all), newest first. */
export function register(program: Command, cli: Cli): void {
  program
    .command("ls")
    .description("list sessions of the current directory (or --all), latest activity first")
    .option("-a, --all", "sessions of every directory")
    .option("--cwd <dir>", "sessions of this directory instead of the current one")
    .option("-s, --search <text>", "only sessions whose name or messages contain the text (case-insensitive)")
    .option("-e, --entries", "with --search: under each session, the entries that match, with a snippet")
    .option("-n, --limit <n>", "show at most n sessions", parseCount)
    .addHelpText(
      "after",
      `
Columns: the shortest id prefix that names the session (8 characters at least), last activity,
messages and entries in every branch (entries as \`tree\` counts them), branches, name or first
message. The first row is "the latest session" other commands use when none is named.
A search that matches nothing says so and exits 0 (--json prints []).`,
    )
    .action(async (options: LsOptions, command: Command) => {
      const { runLs } = await import("./ls-run.js");
      await runLs(cli.context(command), options);
    });
}
