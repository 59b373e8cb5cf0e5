import type { Command } from "commander";
import type { Cli } from "../command-context.js";
import { SESSION_REF_HELP } from "../resolve.js";
import type { ExportOptions } from "./export-run.js";

/** `sessiontree export`: Markdown of a branch, JSON of everything, or the viewer as one HTML file. */
export function register(program: Command, cli: Cli): void {
  program
    .command("export")
    .description(
      "write a session as Markdown (the leaf's branch), JSON (everything) or one HTML file (the viewer)",
    )
    .argument("[session]", SESSION_REF_HELP)
    .option("-f, --format <format>", "md, json or html (default md; --json alone means json)")
    .option("--html", "same as --format html")
    .option("--md", "same as --format md")
    .option("-o, --output <file>", "write to a file instead of stdout")
    .option("--force", "overwrite the output file if it exists")
    .option("--at <entry>", "Markdown and JSON context: the branch ending at this entry instead of the leaf")
    .action(async (ref: string | undefined, options: ExportOptions, command: Command) => {
      const { runExport } = await import("./export-run.js");
      await runExport(cli.context(command), ref, options);
    });
}
