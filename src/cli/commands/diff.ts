import type { Command } from "commander";
import type { Cli } from "../command-context.js";
import { ENTRY_REF_HELP, SESSION_REF_HELP } from "../resolve.js";
import type { DiffOptions } from "./diff-run.js";

/** `sessiontree diff A [B]`: where two branches of a session part, and what each has after that. */
export function register(program: Command, cli: Cli): void {
  program
    .command("diff")
    .description(
      "compare two branches of a session: where they part, and the messages, tool calls and files after",
    )
    .argument("<entryA>", ENTRY_REF_HELP)
    .argument("[entryB]", `${ENTRY_REF_HELP} (default: the leaf)`)
    .option("-s, --session <session>", SESSION_REF_HELP)
    .option("--full", "list every entry of each branch (default: the first 10 and the last 5)")
    .addHelpText(
      "after",
      `
Each branch is the path from the root to the entry named. The common ancestor is the last entry
both paths share; what follows it on each side is listed with its tool calls and the files that
write/edit tools touched (pi's write and edit, Claude Code's Write, Edit, MultiEdit, NotebookEdit,
Codex's apply_patch; what a shell command writes cannot be known from the call).`,
    )
    .action(async (a: string, b: string | undefined, options: DiffOptions, command: Command) => {
      const { runDiff } = await import("./diff-run.js");
      await runDiff(cli.context(command), a, b, options);
    });
}
