/**
 * One cold operation in a fresh process, so that nothing is cached in the heap or warmed up by an
 * earlier run: prints the wall and CPU milliseconds of the operation (module loading excluded) and
 * the process's peak resident memory. Only the implementation under test is imported.
 *
 * Usage: cold-child.ts <pi|ours|ours-cold|floor> <open-branch|open-context|open-tree|resume-append|list> <file>
 *        cold-child.ts floor-lines <lines.json> <file>
 * `ours-cold` deletes the sidecar index first (a first open); `ours` opens with it present.
 * `floor` is the least an eager reader must do for any operation that needs every line's content:
 * read the file in 1 MiB chunks and keep `JSON.parse` of every line (no validation, no tree).
 * `floor-lines` is the least a reader that knows which lines it needs must do (a context through the
 * sidecar index): read and keep `JSON.parse` of the lines listed as `[offset, length]` pairs in
 * lines.json (ascending), in reads of at least 1 MiB; the list is loaded before the clock starts.
 */
import { closeSync, openSync, readFileSync, readSync, rmSync } from "node:fs";
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

/** Every line parsed and kept, nothing else: see `floor` above. Returns how many values it holds. */
function parseAndKeepEveryLine(path: string): number {
  const fd = openSync(path, "r");
  const kept: unknown[] = [];
  let buffer = Buffer.allocUnsafe(1 << 20);
  let filled = 0;
  let position = 0;
  for (;;) {
    if (filled === buffer.length) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(buffer.length)]);
    const n = readSync(fd, buffer, filled, buffer.length - filled, position);
    if (n === 0) break;
    position += n;
    filled += n;
    let start = 0;
    for (let newline = buffer.indexOf(10, start); newline >= 0 && newline < filled; ) {
      kept.push(JSON.parse(buffer.toString("latin1", start, newline)));
      start = newline + 1;
      newline = buffer.indexOf(10, start);
    }
    buffer.copy(buffer, 0, start, filled);
    filled -= start;
  }
  closeSync(fd);
  return kept.length;
}

/** The listed lines parsed and kept, nothing else: see `floor-lines` above. */
function parseAndKeepLines(path: string, lines: readonly (readonly [number, number])[]): number {
  const fd = openSync(path, "r");
  const kept: unknown[] = [];
  let window = Buffer.allocUnsafe(1 << 20);
  let windowStart = 0;
  let windowEnd = 0;
  for (const [offset, length] of lines) {
    if (offset < windowStart || offset + length > windowEnd) {
      if (window.length < length) window = Buffer.allocUnsafe(length);
      windowStart = offset;
      windowEnd = offset + readSync(fd, window, 0, window.length, offset);
    }
    const at = offset - windowStart;
    kept.push(JSON.parse(window.toString("latin1", at, at + length)));
  }
  closeSync(fd);
  return kept.length;
}

if (impl === "floor" || impl === "floor-lines") {
  const lines = impl === "floor-lines" ? (JSON.parse(readFileSync(op, "utf8")) as [number, number][]) : [];
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = impl === "floor" ? parseAndKeepEveryLine(file) : parseAndKeepLines(file, lines);
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const rssMiB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(
    `${JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000, rssMiB, result })}\n`,
  );
  process.exit(0);
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
