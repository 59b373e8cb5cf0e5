import type { Command } from "commander";
import type { Cli } from "../command-context.js";

export interface LoginFlags {
  server: string;
  keyEnv?: string;
  check: boolean;
}

/**
 * `sessiontree login --server URL`: keeps the service's URL and an API key (read from stdin, or from
 * the environment variable named by --key-env; never from the command line, where other users'
 * `ps` would see it) in a 0600 file in the user's config directory. `logout` forgets it.
 */
export function register(program: Command, cli: Cli): void {
  program
    .command("login")
    .description("save a sessiontree service's URL and API key for `sessiontree sync` (key read from stdin)")
    .requiredOption("--server <url>", "the service, e.g. https://sessions.example.com")
    .option("--key-env <name>", "read the key from this environment variable instead of stdin")
    .option("--no-check", "save without asking the service whether the key works")
    .action(async (flags: LoginFlags, command: Command) => {
      const { runLogin } = await import("./login-run.js");
      await runLogin(cli.context(command), flags);
    });
  program
    .command("logout")
    .description("forget the saved key of a service (every service without --server)")
    .option("--server <url>", "the service to forget")
    .action(async (flags: { server?: string }, command: Command) => {
      const { runLogout } = await import("./login-run.js");
      runLogout(cli.context(command), flags);
    });
}
