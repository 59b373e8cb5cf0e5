import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";

/** The CLI as `bin/sessiontree` runs it, from source (test/server/cli-child.ts). */
export const CLI_CHILD = join(import.meta.dirname, "..", "server", "cli-child.ts");

export interface ServeChild {
  child: ChildProcess;
  url: string;
  /** SIGTERM (a graceful drain), then waits for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, then waits for the exit: a crash. */
  kill(): Promise<void>;
}

/**
 * `sessiontree serve --port 0 …args` in a process of its own, resolved once it says where it
 * listens. Its stdout keeps being read (the access log must never fill the pipe and stall it).
 */
export async function startServeChild(args: readonly string[]): Promise<ServeChild> {
  const argv = ["--import", "tsx", CLI_CHILD, "serve", "--port", "0", ...args];
  const child = spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "inherit"] });
  child.stdout?.setEncoding("utf8");
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}`)));
    child.stdout?.on("data", (chunk: string) => {
      out += chunk;
      const match = /listening on (https?:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
  });
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  return {
    child,
    url,
    async stop() {
      if (exited()) return child.exitCode;
      const done = once(child, "exit");
      child.kill("SIGTERM");
      const [code] = await done;
      return code as number | null;
    },
    async kill() {
      if (exited()) return;
      const done = once(child, "exit");
      child.kill("SIGKILL");
      await done;
    },
  };
}
