import { main } from "../../src/cli/main.js";
import { SessionFile } from "../../src/file/session-file.js";
import { capturedIO } from "../support/captured-io.js";

/** Runs the CLI in-process, counting the whole reads of a session file it makes. */
export async function runCountingWholeReads(
  args: readonly string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ code: number; out: string; err: string; wholeReads: number }> {
  const { io, output } = capturedIO(env, cwd);
  const open = SessionFile.open;
  let wholeReads = 0;
  SessionFile.open = (...openArgs: Parameters<typeof open>) => {
    wholeReads++;
    return open.apply(SessionFile, openArgs);
  };
  try {
    const code = await main([...args], io);
    return { code, out: output.stdout, err: output.stderr, wholeReads };
  } finally {
    SessionFile.open = open;
  }
}
