/**
 * Issue 14's cold whole reads on their own (the same measures `npm run bench` takes, without the
 * rest of it): cold open + getBranch on a deep chain, cold open + context on a branchy session
 * with no compaction, cold open + getTree, getTree on a loaded session, and the full read of every
 * line against JSON.parse of the same bytes. Fresh processes for the cold figures, pi in the same run.
 *
 * Usage: tsx bench/cold-run.ts [--quick] [--runs N] [--dir D]   (D keeps the generated files between runs)
 */
import { existsSync, mkdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ColdFigure, coldMedians } from "./cold.js";
import { type GeneratedSession, generateSession } from "./generate.js";
import { measureOpen, measureTreeOps } from "./open.js";
import { parseReference } from "./reference.js";
import { mb } from "./stats.js";

const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
const option = (name: string) => {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : undefined;
};
const runs = Number(option("--runs") ?? 3);
const dir = option("--dir") ?? join(tmpdir(), `sessiontree-cold-${quick ? "quick" : "full"}`);
const size = quick ? 20_000 : 100_000;
const depth = quick ? 40_000 : 200_000;

/** A generated session, reused when the file is already there (generation is deterministic). */
function session(name: string, shape: Parameters<typeof generateSession>[1]): GeneratedSession {
  const path = join(dir, name);
  if (existsSync(path))
    return { path, bytes: statSync(path).size, entries: shape.entries, leafId: "", depth: 0 };
  mkdirSync(dir, { recursive: true });
  return generateSession(path, shape);
}

function line(what: string, figures: Record<string, ColdFigure | null>, target: number): void {
  const pi = figures.pi;
  for (const impl of ["ours-cold", "ours"]) {
    const ours = figures[impl];
    if (!ours || !pi) continue;
    const ratio = pi.ms / ours.ms;
    // On a loaded machine the wall ratio swings with the scheduler; the CPU ratio much less.
    process.stdout.write(
      `${what} [${impl}]: ours ${ours.ms.toFixed(0)} ms, pi ${pi.ms.toFixed(0)} ms → ${ratio.toFixed(2)}× (target ≥ ${target}×) ${ratio >= target ? "✅" : "❌"}; ` +
        `CPU ours ${ours.cpuMs.toFixed(0)} ms, pi ${pi.cpuMs.toFixed(0)} ms → ${(pi.cpuMs / ours.cpuMs).toFixed(2)}×; peak ours ${ours.rssMiB.toFixed(0)} MiB, pi ${pi.rssMiB.toFixed(0)} MiB\n`,
    );
  }
  const floor = figures.floor;
  if (floor && pi)
    process.stdout.write(
      `${what} [floor: read + JSON.parse of every line, values kept, nothing else]: ${floor.ms.toFixed(0)} ms, CPU ${floor.cpuMs.toFixed(0)} ms → pi ${(pi.ms / floor.ms).toFixed(2)}× (CPU ${(pi.cpuMs / floor.cpuMs).toFixed(2)}×): the most a reader that parses every line can reach\n`,
    );
}

const chain = session(`chain-${depth}.jsonl`, { entries: depth, tiny: true, seed: 7 });
const branchy = session(`branchy-${size}.jsonl`, { entries: size, abandonedBranches: 50, seed: size });
const noCompaction = session(`branchy-${size}-no-compaction.jsonl`, {
  entries: size,
  abandonedBranches: 50,
  compactEvery: 0,
  seed: size,
});
process.stdout.write(
  `files: chain ${mb(chain.bytes).toFixed(0)} MiB, branchy ${mb(branchy.bytes).toFixed(0)} MiB, no compaction ${mb(noCompaction.bytes).toFixed(0)} MiB; load ${(await import("node:os")).loadavg()[0]?.toFixed(1)}\n`,
);

line(
  `cold open + getBranch, chain of ${depth}`,
  coldMedians(["pi", "ours-cold", "floor"], "open-branch", chain.path, runs),
  4,
);
line(
  `cold open + context, ${size} branchy no compaction`,
  coldMedians(["pi", "ours-cold", "floor"], "open-context", noCompaction.path, runs),
  8,
);
line(
  `cold open + getTree, ${size} branchy`,
  coldMedians(["pi", "ours-cold"], "open-tree", branchy.path, runs),
  1,
);

const tree = measureTreeOps(branchy, `${size} branchy`, Math.max(runs, 5)).find(
  (row) => row.what === "getTree()",
);
if (tree && tree.pi !== null)
  process.stdout.write(
    `getTree() on a loaded session: ours ${tree.ours.toFixed(1)} ms, pi ${tree.pi.toFixed(1)} ms → ${(tree.pi / tree.ours).toFixed(2)}× (target ≥ 5×)\n`,
  );

const reference = parseReference(branchy.path, 3);
const open = measureOpen(branchy, `${size} branchy`, Math.max(runs, 3));
process.stdout.write(
  `full read of every line + context: ${open.times.full.toFixed(0)} ms, JSON.parse of every line ${reference.parseMs.toFixed(0)} ms → ${(open.times.full / reference.parseMs).toFixed(2)}× (target ≤ 1.3×); pi ${(open.times.pi / reference.parseMs).toFixed(2)}×; JSON.parse with the values kept ${reference.keptParseMs.toFixed(0)} ms → ${(reference.keptParseMs / reference.parseMs).toFixed(2)}× by itself\n`,
);
