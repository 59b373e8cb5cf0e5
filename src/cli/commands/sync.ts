import { type Command, InvalidArgumentError } from "commander";
import type { Cli } from "../command-context.js";

export interface SyncFlags {
  server?: string;
  leaf: string;
  dryRun?: boolean;
  watch?: boolean;
  interval: number;
}

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0.1 || seconds > 86_400)
    throw new InvalidArgumentError("seconds between 0.1 and 86400");
  return seconds;
}

/**
 * `sessiontree sync`: the local root (ours, or pi's with --pi) and a sessiontree service, both ways.
 * The key comes from SESSIONTREE_API_KEY or the file `sessiontree login` writes.
 */
export function register(program: Command, cli: Cli): void {
  program
    .command("sync")
    .description(
      "sync the sessions of the root with a sessiontree service, both ways (resumable, incremental); key from SESSIONTREE_API_KEY or `sessiontree login`",
    )
    .option("--server <url>", "the service (default: $SESSIONTREE_SERVER, else the one you logged in to)")
    .option("--leaf <mode>", "whose leaf wins: auto (fast-forward only), local or remote", "auto")
    .option("--dry-run", "say what would be sent and written; change nothing")
    .option("--watch", "keep syncing as files grow and the service changes (Ctrl-C stops)")
    .option("--interval <seconds>", "with --watch: pause between syncs", parseSeconds, 2)
    .action(async (flags: SyncFlags, command: Command) => {
      const { runSync } = await import("./sync-run.js");
      await runSync(cli.context(command), flags);
    });
}
