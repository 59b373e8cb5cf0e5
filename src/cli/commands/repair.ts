import type { Command } from "commander";
import type { Cli } from "../command-context.js";
import type { RepairCommandOptions } from "./repair-run.js";

/** `sessiontree repair`: rewrites damaged files as clean v3, keeping the original. */
export function register(program: Command, cli: Cli): void {
  program
    .command("repair")
    .description("rewrite damaged session files as clean v3 files; the original is kept as <file>.bak-<time>")
    .argument(
      "[targets...]",
      "sessions (id, prefix, file) or folders; default: the latest session of this directory",
    )
    .option("--all", "every session of the root")
    .option("-n, --dry-run", "say what would change, write nothing")
    .action(async (targets: string[], options: RepairCommandOptions, command: Command) => {
      const { runRepair } = await import("./repair-run.js");
      runRepair(cli.context(command), targets, options);
    });
}
