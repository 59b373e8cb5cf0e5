/**
 * The CLI as a user feels it (issue 14.4): `sessiontree ls`, `tree` and `show` on a 1,000-entry
 * session, and `ls --all` over 2,000 sessions once the catalog is warm, each a fresh process of the
 * built command (`npm run build` first), wall time including start-up, median of several rounds.
 *
 *   npm run build && npx tsx bench/cli-commands.ts [--rounds 15]
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { encodeCwd, sessionsDir } from "../src/file/paths.js";
import { generateSession } from "./generate.js";
import { type Goal, goalLines } from "./goals.js";
import { generateFolder } from "./listing.js";
import { builtEnv, command, timeRounds } from "./spawn-time.js";
import { median } from "./stats.js";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(REPO, "bin/sessiontree.js");
const CWD = "/home/dev/project";
const GROUP = "CLI (built, wall time with start-up)";

export function builtCliPresent(): boolean {
  return existsSync(join(REPO, "dist/cli-bundle/main.js"));
}

/**
 * Two roots: one holding a single 1,000-entry session, one holding `listCount` small sessions
 * (the listing is then warmed once, so its catalog is written, as any second `ls` finds it).
 */
export function measureCliCommands(work: string, rounds: number, listCount = 2_000): Goal[] {
  const one = join(work, "one");
  const many = join(work, "many");
  const session = generateSession(
    join(sessionsDir(one), encodeCwd(CWD), "2026-01-05T09-00-00-000Z_bench-1000.jsonl"),
    {
      entries: 1_000,
      abandonedBranches: 5,
      seed: 1000,
    },
  );
  const manyDir = join(sessionsDir(many), encodeCwd(CWD));
  mkdirSync(manyDir, { recursive: true });
  generateFolder(manyDir, listCount);
  const prefix = "bench-1000";
  const onOne = ["--root", one];
  // Bare node in the same rounds: what any command pays before sessiontree runs (the VM's floor).
  const bare = command("node -e 0", ["-e", "0"]);
  const commands = [
    bare,
    command("ls", [BIN, "ls", ...onOne, "--cwd", CWD]),
    command("tree", [BIN, "tree", prefix, ...onOne]),
    command("show", [BIN, "show", prefix, ...onOne]),
    command("ls 2,000", [BIN, "ls", "--root", many, "--all", "-n", "50"]),
  ];
  timeRounds(commands, rounds, { env: builtEnv({ HOME: work }), cwd: work });
  const [node, ls, tree, show, lsMany] = commands.map((timed) => median(timed.times)) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const note = `\`node -e 0\` in the same rounds: ${node.toFixed(0)} ms`;
  const entries = `${session.entries.toLocaleString("en-US")}-entry session`;
  return [
    {
      group: GROUP,
      what: `\`sessiontree ls\`, a root with one ${entries}`,
      value: ls,
      unit: "ms",
      bound: 150,
      note,
    },
    { group: GROUP, what: `\`sessiontree tree\` of a ${entries}`, value: tree, unit: "ms", bound: 150, note },
    { group: GROUP, what: `\`sessiontree show\` of a ${entries}`, value: show, unit: "ms", bound: 150, note },
    {
      group: GROUP,
      what: `\`sessiontree ls --all\` over ${listCount.toLocaleString("en-US")} sessions, catalog warm`,
      value: lsMany,
      unit: "ms",
      bound: 300,
      note,
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: { rounds: { type: "string", default: "15" }, "goals-json": { type: "string" } },
  });
  if (!builtCliPresent()) {
    process.stderr.write(
      "no dist/cli-bundle/: run `npm run build` first (the figures are the built command's)\n",
    );
    process.exit(2);
  }
  const work = mkdtempSync(join(tmpdir(), "sessiontree-cli-commands-"));
  try {
    const goals = measureCliCommands(work, Number(values.rounds));
    process.stdout.write(`${goalLines(goals).join("\n")}\n${goals[0]?.note ?? ""}\n`);
    // As a child of `npm run bench` (child-goals.ts): a parent holding gigabytes of heap would make
    // every spawn of the command slower (the fork copies its page tables), which is not the CLI's time.
    if (values["goals-json"]) writeFileSync(values["goals-json"], JSON.stringify(goals));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
