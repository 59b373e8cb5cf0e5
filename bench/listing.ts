import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { dropCatalog } from "../src/session/catalog.js";
import { SessionManager } from "../src/session/session-manager.js";
import { generateSession } from "./generate.js";
import type { Row } from "./results.js";
import { median, timeOnceAsync } from "./stats.js";

const CWD = "/home/dev/project";

/** `count` sessions of 10 to 80 entries in one folder, as pi lays them out. */
export function generateFolder(dir: string, count: number): number {
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const entries = 10 + ((i * 37) % 71);
    bytes += generateSession(`${dir}/2026-01-05T09-00-00-000Z_s${String(i).padStart(5, "0")}.jsonl`, {
      entries,
      seed: 1000 + i,
    }).bytes;
  }
  return bytes;
}

/** pi's list() against ours, first call (no catalog) and repeated call (catalog present). */
export async function measureListing(dir: string, count: number, runs: number): Promise<Row[]> {
  const pi: number[] = [];
  const first: number[] = [];
  const repeated: number[] = [];
  for (let r = 0; r < runs; r++) {
    pi.push(await timeOnceAsync(() => PiSessionManager.list(CWD, dir)));
    dropCatalog(dir);
    first.push(await timeOnceAsync(() => SessionManager.list(CWD, dir)));
    repeated.push(await timeOnceAsync(() => SessionManager.list(CWD, dir)));
  }
  const piMs = median(pi);
  const group = `list ${count.toLocaleString("en-US")} sessions`;
  return [
    { group, what: "first call (no catalog: reads every file)", unit: "ms", ours: median(first), pi: piMs },
    {
      group,
      what: "repeated call (catalog: stat each file)",
      unit: "ms",
      ours: median(repeated),
      pi: piMs,
      target: 20,
      note: "pi re-reads every file on every call",
    },
  ];
}
