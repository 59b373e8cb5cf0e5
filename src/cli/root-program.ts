import { Command } from "commander";
import type { Cli } from "./command-context.js";

/** The program's version: `sessiontree --version` (and the MCP server's) prints it. */
export const VERSION = "0.1.0";

/**
 * The `sessiontree` program without its commands: name, description, version, the global options
 * (`--root`, `--pi`, `--json`, accepted before or after the command) and how it reports. Commander
 * never exits the process: `main` turns its errors into exit codes.
 */
export function rootProgram(cli: Cli): Command {
  return new Command("sessiontree")
    .description("Agent history as an append-only tree: list, draw, navigate, repair and move sessions")
    .version(VERSION)
    .option("--root <dir>", "sessions root (default: $SESSIONTREE_ROOT or ~/.sessiontree)")
    .option("--pi [dir]", "work on a pi agent directory (default: ~/.pi/agent)")
    .option("--json", "machine-readable output")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => cli.io.out(text),
      writeErr: (text) => cli.io.err(text),
    })
    .showHelpAfterError("(run with --help for usage)");
}

/** How each global option of `rootProgram` takes a value: what `invokedCommand` must skip. */
export const GLOBAL_OPTIONS: ReadonlyMap<string, "required" | "optional" | "none"> = new Map([
  ["--root", "required"],
  ["--pi", "optional"],
  ["--json", "none"],
]);
