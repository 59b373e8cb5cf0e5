// `sessiontree …` in a child process, as the CLI runs it (the sync crash test SIGKILLs it). The
// sync's modules are loaded before "started" is printed, so the time after it is the sync's own.
import { main } from "../../src/cli/main.js";

await import("../../src/cli/commands/sync-run.js");
process.stderr.write("started\n");
process.exitCode = await main(process.argv.slice(2));
