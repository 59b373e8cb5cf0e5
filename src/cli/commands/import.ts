import type { Command } from "commander";
import type { Cli } from "../command-context.js";
import type { ImportOptions } from "./import-run.js";

/** `sessiontree import PATH...`: Claude Code, Codex CLI and pi session files into the root. */
export function register(program: Command, cli: Cli): void {
  program
    .command("import")
    .description(
      "import Claude Code, Codex CLI and pi session files (files or folders) into the root; a session imported before gets what its source gained since",
    )
    .argument("<paths...>", "session files, or folders to search for .jsonl files")
    .option("--cwd <dir>", "file the sessions under this directory instead of the one they name")
    .option("--format <format>", "auto (by what the file is), claude, codex or pi", "auto")
    .option("--new-id", "give each imported session a new id (import a copy instead of updating)")
    .action(async (paths: string[], options: ImportOptions, command: Command) => {
      const { runImport } = await import("./import-run.js");
      runImport(cli.context(command), paths, options);
    });
}
