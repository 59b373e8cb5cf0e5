/**
 * One cold operation in a fresh process, so that nothing is cached in the heap or warmed up by an
 * earlier run: prints the wall and CPU milliseconds of the operation (module loading excluded) and
 * the process's peak resident memory. Only the implementation under test is imported.
 *
 * Usage: cold-child.ts <pi|ours|ours-cold> <open-branch|open-context|open-tree|resume-append|list> <file>
 * `ours-cold` deletes the sidecar index first (a first open); `ours` opens with it present.
 */
import { rmSync } from "node:fs";
import { dirname } from "node:path";

const [impl, op, file] = process.argv.slice(2) as [string, string, string];
const dir = dirname(file);
const next = { role: "user" as const, content: "and now the next step", timestamp: 1_767_600_000_000 };

interface Manager {
  getBranch(): unknown[];
  getTree(): unknown[];
  buildSessionContext(): { messages: unknown[] };
  appendMessage(message: typeof next): string;
}

async function load(): Promise<{ open: (path: string) => Manager; list: () => Promise<unknown[]> }> {
  if (impl === "pi") {
    const { SessionManager } = await import("@mariozechner/pi-coding-agent");
    return {
      open: (path) => SessionManager.open(path, dir) as unknown as Manager,
      list: () => SessionManager.list(dir, dir),
    };
  }
  const { SessionManager } = await import("../src/session/session-manager.js");
  if (impl === "ours-cold") {
    const { indexPathFor } = await import("../src/file/sidecar-index.js");
    rmSync(indexPathFor(file), { force: true });
  }
  return {
    open: (path) => SessionManager.open(path, dir) as unknown as Manager,
    list: () => SessionManager.list(dir, dir),
  };
}

const contender = await load();
const operations: Record<string, () => Promise<number>> = {
  "open-branch": async () => contender.open(file).getBranch().length,
  "open-context": async () => contender.open(file).buildSessionContext().messages.length,
  "open-tree": async () => contender.open(file).getTree().length,
  "resume-append": async () => {
    const manager = contender.open(file);
    manager.buildSessionContext();
    return manager.appendMessage(next).length;
  },
  list: async () => (await contender.list()).length,
};
const operation = operations[op];
if (!operation) throw new Error(`unknown operation ${op}`);
const cpu = process.cpuUsage();
const start = performance.now();
const result = await operation();
const ms = performance.now() - start;
const used = process.cpuUsage(cpu);
const rssMiB = process.resourceUsage().maxRSS / 1024;
process.stdout.write(`${JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000, rssMiB, result })}\n`);
