import type { Command } from "commander";
import type { Cli } from "../command-context.js";
import { parseCount } from "../option-parsers.js";
import type { SearchOptions } from "./search-run.js";

/** `sessiontree search <query…>`: full text over every entry of the sessions, ranked. */
export function register(program: Command, cli: Cli): void {
  program
    .command("search")
    .description("find entries by their text in the sessions of the current directory (or --all)")
    .argument("<query...>", 'words (all must be found), "a phrase", prefix*')
    .option("-a, --all", "sessions of every directory")
    .option("--cwd <dir>", "sessions of this directory instead of the current one")
    .option("-n, --limit <n>", "show at most n hits (default 20)", parseCount)
    .addHelpText(
      "after",
      `
Searched: message text, tool calls (name and arguments) and tool results, bash commands and
output, compaction and branch summaries; not thinking, images or settings. Words match whole,
case- and accent-insensitively; src/app.ts or read_file match as phrases, parseArgs is also found
by "args". Hits are ranked by relevance (BM25), then newest first; each says whether its entry is
on the path to the session's leaf or on an abandoned branch. The index lives in sessiontree's
cache directory and is brought up to date before each search (the first one reads every file);
deleting it is safe. --json prints an array of hits.`,
    )
    .action(async (words: string[], options: SearchOptions, command: Command) => {
      const { runSearch } = await import("./search-run.js");
      await runSearch(cli.context(command), words, options);
    });
}
