import { CommanderError } from "commander";
import { Cli } from "./command-context.js";
import { invokedCommand, programFor } from "./command-table.js";
import { EXIT_OK, EXIT_USAGE, errorCode, exitCodeFor } from "./exit.js";
import { type CliIO, colorsFor, processIO } from "./io.js";
import { terminalGuarded } from "./terminal-text.js";

/**
 * Runs the command line `argv` (without node and the script) and returns the exit status:
 * 0 ok, 1 findings or errors, 2 usage. Never calls `process.exit`, so it can run in-process.
 */
export async function main(argv: readonly string[], processOut: CliIO = processIO()): Promise<number> {
  // `export` writes data to stdout, exact; everything else a command prints is for people.
  const io = terminalGuarded(processOut, { guardOut: invokedCommand(argv) !== "export" });
  const cli = new Cli(io);
  const program = programFor(argv, cli);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return cli.exitCode;
  } catch (error) {
    // Commander has already printed its own message (help, unknown option, missing argument).
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return EXIT_OK;
      if (argv.includes("--json"))
        io.out(`${JSON.stringify({ error: { code: "usage", message: error.message } }, null, 2)}\n`);
      return EXIT_USAGE;
    }
    reportError(error, argv.includes("--json"), io);
    return exitCodeFor(error);
  }
}

function reportError(error: unknown, json: boolean, io: CliIO): void {
  const message = error instanceof Error ? error.message : String(error);
  const code = errorCode(error);
  if (json) {
    io.out(`${JSON.stringify({ error: { code, message } }, null, 2)}\n`);
    return;
  }
  const c = colorsFor({ ...io, stdoutIsTTY: io.stderrIsTTY });
  io.err(`${c.red("error")} ${c.dim(`[${code}]`)} ${message}\n`);
  if (code === "internal" && error instanceof Error && error.stack) io.err(`${c.dim(error.stack)}\n`);
}
