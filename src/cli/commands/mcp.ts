import type { Command } from "commander";
import type { Cli } from "../command-context.js";
import type { McpOptions } from "./mcp-run.js";

/** `sessiontree mcp`: a Model Context Protocol server over stdio, so an agent can consult past sessions. */
export function register(program: Command, cli: Cli): void {
  program
    .command("mcp")
    .description("serve past sessions to an agent over the Model Context Protocol (stdio)")
    .option("--server <url>", "read the service's sessions instead of files (key in $SESSIONTREE_API_KEY)")
    .option("--allow-writes", "also offer label_entry and checkout (read-only without it)")
    .addHelpText(
      "after",
      `
Tools: list_sessions, search_sessions, get_context, list_branches, read_entry (with --allow-writes:
label_entry, checkout). Only the sessions under the root (--root, --pi, or the default) can be
reached; with --server, only the key's user's. stdout carries the protocol; the log goes to stderr.
Register it in an agent's MCP configuration as the command \`sessiontree mcp\` (docs/mcp.md).`,
    )
    .action(async (options: McpOptions, command: Command) => {
      const { runMcp } = await import("./mcp-run.js");
      await runMcp(cli.context(command), options, {
        globals: command.optsWithGlobals(),
        version: command.parent?.version() ?? "0.0.0",
      });
    });
}
