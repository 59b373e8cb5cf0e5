import { Command, CommanderError } from "commander";
import { EXIT_USAGE, exitCodeFor } from "../exit.js";
import { register } from "./view.js";

/**
 * `npm start`: the viewer on the default roots (sessiontree's and pi's), as `sessiontree view`.
 * Arguments pass through: `npm start -- --port 8080 --no-open`.
 */
const program = new Command("sessiontree").exitOverride();
register(program);
try {
  await program.parseAsync(["view", ...process.argv.slice(2)], { from: "user" });
} catch (error) {
  if (error instanceof CommanderError) process.exitCode = error.exitCode === 0 ? 0 : EXIT_USAGE;
  else {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = exitCodeFor(error);
  }
}
