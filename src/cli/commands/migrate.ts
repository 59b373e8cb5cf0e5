import type { Command } from "commander";
import { CURRENT_SESSION_VERSION } from "../../core/entry.js";
import type { Cli } from "../command-context.js";

export interface MigrateOptions {
  all?: boolean;
  dryRun?: boolean;
}

export function register(program: Command, cli: Cli): void {
  program
    .command("migrate")
    .description(
      `rewrite older session files (v1, v2) as v${CURRENT_SESSION_VERSION}; the original is kept as <file>.v<N>.bak`,
    )
    .argument(
      "[targets...]",
      "sessions (id, prefix, file) or folders; default: the latest session of this directory",
    )
    .option("--all", "every session of the root")
    .option("-n, --dry-run", "say what would be migrated, write nothing")
    .action(async (targets: string[], options: MigrateOptions, command: Command) => {
      const { runMigrate } = await import("./migrate-run.js");
      runMigrate(cli.context(command), targets, options);
    });
}
