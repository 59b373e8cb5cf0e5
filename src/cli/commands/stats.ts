import { type Command, InvalidArgumentError } from "commander";
import type { Cli } from "../command-context.js";
import { SESSION_REF_HELP } from "../resolve.js";
import type { StatsOptions } from "./stats-run.js";

/** `sessiontree stats [session]`: tokens, cost, time, tools and what rewinds cost. */
export function register(program: Command, cli: Cli): void {
  program
    .command("stats")
    .description(
      "tokens, cost, time and tool calls of a session, or of all sessions of a directory (or --all)",
    )
    .argument("[session]", `${SESSION_REF_HELP}; none: every session of the directory`)
    .option("-a, --all", "without a session: sessions of every directory")
    .option("--cwd <dir>", "without a session: sessions of this directory instead of the current one")
    .option(
      "--since <when>",
      "only entries since a date (2026-01-31, local midnight) or a time ago (7d, 12h, 30m, 2w)",
    )
    .option("--by <group>", "rows by session (default without a session), day, model or cwd")
    .option(
      "--idle <minutes>",
      "gaps between entries longer than this are idle, not active time (default 10)",
      parseMinutes,
    )
    .addHelpText(
      "after",
      `
Tokens and cost are the sums of the usage pi stores on each assistant message. A message with no
usage (some imports) is counted as "usage unknown", never as zero; one without a price as "cost
unknown". Active time adds up the gaps between consecutive entries, leaving out gaps longer than
--idle; wall time is first to last entry. Abandoned entries are those off the leaf's path: the
branches rewinds left behind. Days (--by day) are local dates.`,
    )
    .action(async (ref: string | undefined, options: StatsOptions, command: Command) => {
      const { runStats } = await import("./stats-run.js");
      await runStats(cli.context(command), ref, options);
    });
}

/** A number of minutes > 0, fractions allowed. */
function parseMinutes(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError("expected a number of minutes > 0");
  return n;
}
