/**
 * `npm run bench:cli`: how long the built `sessiontree` takes to start, against node itself. Runs
 * `node -e 0`, then `sessiontree ls` on an empty root, `--version` and `--help`, one after the other,
 * round after round (so a busy machine slows them alike), and prints each one's median wall time
 * and its cost over bare node. The target (issue 12.7): `ls` under 150 ms on an empty root.
 *
 *   npm run build && npm run bench:cli -- [--runs 25] [--bin OTHER/bin/sessiontree.js ...]
 *
 * `--bin` adds another copy of the package (a build from before a change, say) to the same rounds.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { builtEnv, command, type TimedCommand, timeRounds } from "./spawn-time.js";
import { median } from "./stats.js";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");
const COMMANDS: readonly (readonly string[])[] = [["ls"], ["--version"], ["--help"]];
const LS_TARGET_MS = 150;

const { values } = parseArgs({
  options: { runs: { type: "string", default: "25" }, bin: { type: "string", multiple: true, default: [] } },
});
const runs = Number(values.runs);
const bins = [join(REPO, "bin/sessiontree.js"), ...(values.bin ?? []).map((path) => resolve(path))];
if (!existsSync(join(REPO, "dist/cli-bundle/main.js"))) {
  process.stderr.write(
    "no dist/cli-bundle/: run `npm run build` first (the figure is the built command's)\n",
  );
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), "sessiontree-cli-startup-"));
const root = join(work, "root");
mkdirSync(root);
const bare = command("node -e 0", ["-e", "0"]);
const variants: TimedCommand[] = [bare];
for (const bin of bins) {
  const name = bin === bins[0] ? "sessiontree" : bin;
  for (const args of COMMANDS) variants.push(command(`${name} ${args.join(" ")}`, [bin, ...args]));
}

try {
  timeRounds(variants, runs, { env: builtEnv({ SESSIONTREE_ROOT: root, HOME: work }), cwd: work });
  report();
} finally {
  rmSync(work, { recursive: true, force: true });
}

function report(): void {
  const base = median(bare.times);
  process.stdout.write(`node ${process.version}, ${runs} rounds, medians of wall time (min in brackets)\n`);
  for (const variant of variants) {
    const m = median(variant.times);
    const over = variant === bare ? "" : `  +${(m - base).toFixed(0).padStart(3)} ms over node`;
    const line = `${variant.label.padEnd(48)} ${m.toFixed(0).padStart(5)} ms (${Math.min(...variant.times).toFixed(0)})${over}`;
    process.stdout.write(`${line}\n`);
  }
  const ls = median((variants[1] as TimedCommand).times);
  const verdict = ls < LS_TARGET_MS ? "met" : "NOT met";
  process.stdout.write(
    `target: \`sessiontree ls\` on an empty root < ${LS_TARGET_MS} ms: ${verdict} (${ls.toFixed(0)} ms)\n`,
  );
}
