// `sessiontree serve` and `sessiontree keys` exactly as the CLI registers them, for tests and the bench.
import { Command } from "commander";
import { register as registerKeys } from "../../src/cli/commands/keys.js";
import { registerPurge, register as registerServe } from "../../src/cli/commands/serve.js";

const program = new Command("sessiontree");
registerServe(program);
registerKeys(program);
registerPurge(program);
await program.parseAsync(process.argv);
