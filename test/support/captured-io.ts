import type { CliIO } from "../../src/cli/io.js";

/** Streams that keep what an in-process command prints: not a terminal, 120 columns. */
export function capturedIO(
  env: NodeJS.ProcessEnv,
  cwd: string,
): { io: CliIO; output: { stdout: string; stderr: string } } {
  const output = { stdout: "", stderr: "" };
  const io: CliIO = {
    out: (text) => {
      output.stdout += text;
    },
    err: (text) => {
      output.stderr += text;
    },
    stdoutIsTTY: false,
    stderrIsTTY: false,
    env,
    cwd,
    columns: 120,
  };
  return { io, output };
}
