import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type ColdFigure, coldRun } from "./cold.js";
import { generateSession } from "./generate.js";
import { mb } from "./stats.js";

/** How a session file's operations grow with its size, ours beside pi, each in a fresh process. */
export interface ScaleRow {
  entries: number;
  mib: number;
  op: string;
  ours: ColdFigure | null;
  pi: ColdFigure | null;
}

const OPERATIONS = [
  { op: "open-context", what: "open + context, first open (no index)", ours: "ours-cold" },
  { op: "open-context", what: "open + context, index present", ours: "ours" },
  { op: "resume-append", what: "open + context + one append", ours: "ours" },
  { op: "open-branch", what: "open + getBranch()", ours: "ours" },
  { op: "list", what: "list the session's folder", ours: "ours" },
] as const;

/**
 * Sessions of each size (linear, compacted as pi compacts), every operation in a fresh process, one
 * run each (the largest take minutes for pi). Appends go to a copy, so every size keeps its file.
 */
export function measureScale(root: string, sizes: readonly number[], log: (m: string) => void): ScaleRow[] {
  const rows: ScaleRow[] = [];
  for (const entries of sizes) {
    const dir = join(root, "scale", String(entries));
    mkdirSync(dir, { recursive: true });
    const session = generateSession(join(dir, "session.jsonl"), { entries, seed: entries + 1 });
    log(`scale: generated ${entries} entries, ${mb(session.bytes).toFixed(0)} MiB`);
    for (const { op, what, ours } of OPERATIONS) {
      const run = (impl: string) => {
        const file = op === "resume-append" ? join(dir, `append-${impl}.jsonl`) : session.path;
        if (op === "resume-append") copyFileSync(session.path, file);
        if (ours === "ours" && impl === "ours") coldRun("ours", "open-context", file); // the index
        const figure = coldRun(impl, op, file);
        if (op === "resume-append") rmSync(file, { force: true });
        return figure;
      };
      rows.push({ entries, mib: mb(session.bytes), op: what, pi: run("pi"), ours: run(ours) });
    }
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** The scale rows as a Markdown table: time and peak memory, ours and pi's, per size. */
export function scaleTable(rows: readonly ScaleRow[]): string {
  const ms = (f: ColdFigure | null) => (f ? (f.ms >= 100 ? f.ms.toFixed(0) : f.ms.toFixed(1)) : "—");
  const rss = (f: ColdFigure | null) => (f ? f.rssMiB.toFixed(0) : "—");
  const ratio = (row: ScaleRow) => (row.ours && row.pi ? `${(row.pi.ms / row.ours.ms).toFixed(1)}×` : "—");
  const out = [
    "| entries | MiB | operation | ours ms | pi ms | pi ÷ ours | ours peak MiB | pi peak MiB |",
    "|--:|--:|---|--:|--:|--:|--:|--:|",
  ];
  for (const row of rows) {
    out.push(
      `| ${row.entries.toLocaleString("en-US")} | ${row.mib.toFixed(0)} | ${row.op} | ${ms(row.ours)} | ${ms(row.pi)} | ${ratio(row)} | ${rss(row.ours)} | ${rss(row.pi)} |`,
    );
  }
  return out.join("\n");
}
