import { spawn } from "node:child_process";
import { Type } from "@sinclair/typebox";
import { type AgentTool, defineTool } from "../tools.js";
import { capTail } from "./paths.js";

export interface BashToolOptions {
  /** Seconds a command may run when the call names no timeout. @default 120 */
  defaultTimeoutSeconds?: number;
  /** The longest timeout a call may ask for. @default 600 */
  maxTimeoutSeconds?: number;
  /** Characters of output kept (the end of it). @default 32000 */
  maxOutputChars?: number;
}

/**
 * `bash`: runs a command with `bash -c` in `root`, stdout and stderr together. A timeout or an
 * abort ends the command's whole process group (TERM, then KILL a second later), so a stopped run
 * leaves no child behind. Output beyond the cap keeps its end, where errors are.
 */
export function bashTool(root: string, options: BashToolOptions = {}): AgentTool {
  const maxTimeout = options.maxTimeoutSeconds ?? 600;
  return defineTool({
    name: "bash",
    description: `Run a shell command in the working directory (bash -c). timeout in seconds (default ${options.defaultTimeoutSeconds ?? 120}, at most ${maxTimeout}).`,
    parameters: Type.Object({ command: Type.String(), timeout: Type.Optional(Type.Number({ minimum: 1 })) }),
    execute: async ({ command, timeout }, { signal, onProgress }) => {
      const seconds = Math.min(timeout ?? options.defaultTimeoutSeconds ?? 120, maxTimeout);
      const run = await runCommand(command, root, seconds * 1000, signal, (chunk) =>
        onProgress({ output: chunk }),
      );
      if (run.aborted) throw new Error("aborted");
      const output = capTail(run.output, options.maxOutputChars ?? 32_000) || "(no output)";
      if (run.timedOut)
        return { content: `${output}\n[timed out after ${seconds}s: stopped]`, isError: true };
      const status = run.code === 0 ? "" : `\n[exit code ${run.code ?? run.signal}]`;
      return { content: output + status, isError: run.code !== 0, details: { exitCode: run.code } };
    },
  }) as AgentTool;
}

interface CommandRun {
  output: string;
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
}

function runCommand(
  command: string,
  cwd: string,
  timeoutMs: number,
  signal: AbortSignal,
  onOutput: (chunk: string) => void,
): Promise<CommandRun> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], { cwd, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let timedOut = false;
    let killer: NodeJS.Timeout | undefined;
    const take = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      // Kept bounded while it runs: a command printing forever must not fill the memory.
      output = (output + text).slice(-1_000_000);
      onOutput(text);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    const stopGroup = () => {
      if (child.exitCode !== null || child.pid === undefined) return;
      signalGroup(child.pid, "SIGTERM");
      killer = setTimeout(() => signalGroup(child.pid as number, "SIGKILL"), 1000);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stopGroup();
    }, timeoutMs);
    signal.addEventListener("abort", stopGroup, { once: true });
    if (signal.aborted) stopGroup();
    child.on("close", (code, exitSignal) => {
      clearTimeout(timer);
      clearTimeout(killer);
      signal.removeEventListener("abort", stopGroup);
      resolve({ output, code, signal: exitSignal, timedOut, aborted: signal.aborted });
    });
    child.on("error", (error) => {
      output += `${error.message}\n`;
    });
  });
}

function signalGroup(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(-pid, name);
  } catch {
    // The group is gone already.
  }
}
