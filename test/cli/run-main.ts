// Child-process entry for the CLI tests: runs `main(argv)` once per call of a scenario, in order,
// with captured streams, and prints the results as JSON. One process per scenario keeps the suite
// fast (starting tsx costs ~0.5 s) while every call still goes through the real program.
import { readFileSync } from "node:fs";
import type { CliIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";

export interface CliCall {
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Pretend stdout is a terminal (colours). */
  tty?: boolean;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const calls = JSON.parse(readFileSync(process.argv[2] as string, "utf8")) as CliCall[];
const results: CliResult[] = [];
for (const call of calls) {
  let stdout = "";
  let stderr = "";
  const io: CliIO = {
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
    stdoutIsTTY: call.tty === true,
    stderrIsTTY: false,
    env: call.env,
    cwd: call.cwd,
    columns: 120,
  };
  const code = await main(call.args, io);
  results.push({ code, stdout, stderr });
}
process.stdout.write(JSON.stringify(results));
