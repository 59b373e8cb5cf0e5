import { spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, readSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { indexPathFor } from "../src/file/sidecar-index.js";
import { openPathOnly } from "../src/session/context-resume.js";
import type { Row } from "./results.js";
import { median } from "./stats.js";

const CHILD = fileURLToPath(new URL("./cold-child.ts", import.meta.url));

export interface ColdFigure {
  ms: number;
  cpuMs: number;
  rssMiB: number;
}

/**
 * One operation in a fresh process (bench/cold-child.ts); null when it failed or ran past
 * `timeoutMs` (pi cannot open a file over 512 MB: it reads it into one string).
 */
export function coldRun(impl: string, op: string, file: string, timeoutMs = 600_000): ColdFigure | null {
  const child = spawnSync(process.execPath, ["--import", "tsx", CHILD, impl, op, file], {
    encoding: "utf8",
    maxBuffer: 1 << 20,
    timeout: timeoutMs,
  });
  if (child.status !== 0) return null;
  return JSON.parse(child.stdout.trim().split("\n").pop() as string) as ColdFigure;
}

/**
 * Medians of `runs` fresh processes per contender, interleaved run by run; `before` runs untimed
 * before each contender's run.
 */
export function coldMedians(
  contenders: readonly string[],
  op: string | ((impl: string) => string),
  file: string,
  runs: number,
  before?: (impl: string) => void,
): Record<string, ColdFigure | null> {
  const figures: Record<string, ColdFigure[]> = Object.fromEntries(contenders.map((impl) => [impl, []]));
  const failed = new Set<string>();
  for (let r = 0; r < runs; r++) {
    for (const impl of contenders) {
      if (failed.has(impl)) continue;
      before?.(impl);
      const figure = coldRun(impl, typeof op === "string" ? op : op(impl), file);
      if (figure === null) failed.add(impl);
      else figures[impl]?.push(figure);
    }
  }
  const out: Record<string, ColdFigure | null> = {};
  for (const impl of contenders) {
    const list = figures[impl];
    out[impl] =
      failed.has(impl) || !list || list.length === 0
        ? null
        : {
            ms: median(list.map((f) => f.ms)),
            cpuMs: median(list.map((f) => f.cpuMs)),
            rssMiB: median(list.map((f) => f.rssMiB)),
          };
  }
  return out;
}

/**
 * Issue 14's cold whole reads: a fresh process opens the session and asks for something that needs
 * the whole path, ours with and without the sidecar index, beside pi; time and peak memory.
 */
export function measureColdWholeReads(
  workload: { file: string; label: string; op: "open-branch" | "open-context"; target: number },
  runs: number,
): Row[] {
  // `ours-cold` removes the index, and an open writes none for a session with no compaction (it
  // reads such a file whole): without this, "index present" would time a second first open.
  const withIndex = (impl: string) => {
    if (impl === "ours" && !existsSync(indexPathFor(workload.file))) openPathOnly(workload.file);
  };
  // The lines an open with the index reads (for open-context: those of the path the context needs),
  // for the floor of a reader that knows them.
  const linesFile = `${workload.file}.lines.json`;
  writeFileSync(linesFile, JSON.stringify(linesReadThroughIndex(workload.file, workload.op)));
  const op = (impl: string) => (impl === "floor-lines" ? linesFile : workload.op);
  const t = coldMedians(
    ["pi", "ours-cold", "ours", "floor", "floor-lines"],
    op,
    workload.file,
    runs,
    withIndex,
  );
  rmSync(linesFile, { force: true });
  const pi = t.pi;
  const group = `cold whole reads, fresh process (${workload.label})`;
  const call = workload.op === "open-branch" ? "getBranch()" : "buildSessionContext()";
  const rows: Row[] = [];
  for (const [impl, what] of [
    ["ours-cold", `SessionManager.open + ${call}, first open (no index)`],
    ["ours", `SessionManager.open + ${call}, index present`],
  ] as const) {
    const ours = t[impl];
    if (!ours) continue;
    rows.push({
      group,
      what,
      unit: "ms",
      ours: ours.ms,
      pi: pi?.ms ?? null,
      target: workload.target,
      note: `CPU ${ours.cpuMs.toFixed(0)} ms (pi ${pi?.cpuMs.toFixed(0) ?? "—"} ms)`,
    });
    rows.push({
      group,
      what: `peak memory, ${what}`,
      unit: "MiB",
      ours: ours.rssMiB,
      pi: pi?.rssMiB ?? null,
    });
  }
  // The floors: what parsing (and keeping) the lines alone costs, beside pi.
  for (const [impl, lines, which] of [
    ["floor-lines", "the lines an open with the index reads", "those lines"],
    ["floor", "every line", "every line"],
  ] as const) {
    const floor = t[impl];
    if (!floor) continue;
    rows.push({
      group,
      what: `floor: read + JSON.parse of ${lines}, values kept, nothing else (bench/cold-child.ts \`${impl}\`)`,
      unit: "ms",
      ours: floor.ms,
      pi: pi?.ms ?? null,
      note: `CPU ${floor.cpuMs.toFixed(0)} ms: the most a reader that parses ${which} can reach against pi`,
    });
  }
  return rows;
}

/**
 * `[offset, length]` of each line an open through the index parses for `op`: the path's lines the
 * context needs (open-context) or the whole path (open-branch), in file order.
 */
function linesReadThroughIndex(file: string, op: string): [number, number][] {
  const resumed = openPathOnly(file);
  const needed = new Set(resumed.entries.map((entry) => entry.id));
  const refs = resumed.path.filter((ref) => op === "open-branch" || needed.has(ref.id));
  const fd = openSync(file, "r");
  const scratch = Buffer.allocUnsafe(1 << 20);
  const lines = refs
    .sort((a, b) => a.offset - b.offset)
    .map((ref): [number, number] => {
      for (let size = scratch.length; ; size *= 2) {
        const bytes = size === scratch.length ? scratch : Buffer.allocUnsafe(size);
        const got = readSync(fd, bytes, 0, size, ref.offset);
        const newline = bytes.subarray(0, got).indexOf(10);
        if (newline !== -1 || got < size) return [ref.offset, newline === -1 ? got : newline];
      }
    });
  closeSync(fd);
  return lines;
}
