import type { Command } from "commander";
import type { Cli } from "../command-context.js";
import { SESSION_REF_HELP } from "../resolve.js";
import type { ShowOptions } from "./show-run.js";

/** `sessiontree show` (`context`): the messages the model sees from the leaf or from an entry. */
export function register(program: Command, cli: Cli): void {
  program
    .command("show")
    .alias("context")
    .description("print the context the model sees from the leaf (or from any entry with --at)")
    .argument("[session]", SESSION_REF_HELP)
    .option("--at <entry>", "the context as if the leaf were this entry (id or unique prefix)")
    .option("--full", "do not shorten tool results and thinking")
    .action(async (ref: string | undefined, options: ShowOptions, command: Command) => {
      const { runShow } = await import("./show-run.js");
      await runShow(cli.context(command), ref, options);
    });
}
