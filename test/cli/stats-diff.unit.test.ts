import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { Cli, CommandContext } from "../../src/cli/command-context.js";
import * as diffCommand from "../../src/cli/commands/diff.js";
import { runDiff } from "../../src/cli/commands/diff-run.js";
import * as statsCommand from "../../src/cli/commands/stats.js";
import { parseSince, runStats, type StatsOptions } from "../../src/cli/commands/stats-run.js";
import { UsageError } from "../../src/cli/exit.js";
import { buildProgram } from "../../src/cli/program.js";
import type { SessionEntry, SessionHeader } from "../../src/core/entry.js";
import { encodeCwd } from "../../src/file/paths.js";
import { encodeSession } from "../../src/format/jsonl/encode.js";
import { capturedIO } from "../support/captured-io.js";
import { entryMaker } from "../support/messages.js";
import { FIXTURES } from "./helpers.js";

type Raw = Record<string, unknown>;

const dir = mkdtempSync(join(tmpdir(), "st-stats-diff-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const root = join(dir, "root");
const PROJECT = join(dir, "project");
const OTHER = join(dir, "other");
const BRANCHED = "0195f0a0-0000-7000-8000-00000000000b";
const IMPORTED = "0195f0a0-0000-7000-8000-00000000000c";
const ELSEWHERE = "0195f0a0-0000-7000-8000-00000000000d";

function writeSession(header: SessionHeader, entries: SessionEntry[]): string {
  const folder = join(root, "sessions", encodeCwd(header.cwd));
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `${header.timestamp.replace(/[:.]/g, "-")}_${header.id}.jsonl`);
  writeFileSync(path, encodeSession(header, entries));
  return path;
}

const usage = (input: number, cost: number | null) => ({
  input,
  output: 1,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: input + 1,
  ...(cost === null ? {} : { cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost } }),
});

function reply(make: ReturnType<typeof entryMaker>, id: string, parent: string, fields: Raw): SessionEntry {
  const entry = make.assistant(id, parent) as SessionEntry & { message: Raw };
  entry.message = { ...entry.message, ...fields };
  return entry as SessionEntry;
}

/** u1 → a1 → u2a → a2a (write src/a.ts) → r2a (error) | → u2b → a2b (edit src/a.ts), the leaf. */
const make = entryMaker(Date.parse("2026-03-01T10:00:00.000Z"));
const branched = writeSession(make.header({ id: BRANCHED, cwd: PROJECT }), [
  make.user("u1", null, "fix the build"),
  reply(make, "a1", "u1", { usage: usage(100, 0.25) }),
  make.user("u2a", "a1", "rewrite everything"),
  reply(make, "a2a", "u2a", {
    content: [{ type: "toolCall", id: "c1", name: "write", arguments: { path: "src/a.ts", content: "" } }],
    usage: usage(1000, 1),
  }),
  make.entry("message", "r2a", "a2a", {
    message: { role: "toolResult", toolCallId: "c1", toolName: "write", content: [], isError: true },
  }),
  make.user("u2b", "a1", "just patch it"),
  reply(make, "a2b", "u2b", {
    content: [{ type: "toolCall", id: "c2", name: "edit", arguments: { path: "src/a.ts" } }],
    usage: usage(200, 0.5),
  }),
]);

/** An import: a reply whose usage is the importer's zero placeholder, one with tokens and no price. */
const makeImported = entryMaker(Date.parse("2026-03-02T10:00:00.000Z"));
writeSession(makeImported.header({ id: IMPORTED, cwd: PROJECT, importedFrom: { format: "codex" } }), [
  makeImported.user("i1", null),
  reply(makeImported, "i2", "i1", { usage: { ...usage(0, 0), output: 0, totalTokens: 0 } }),
  reply(makeImported, "i3", "i2", { usage: usage(40, 0) }),
]);

const makeElsewhere = entryMaker(Date.parse("2026-02-01T10:00:00.000Z"));
writeSession(makeElsewhere.header({ id: ELSEWHERE, cwd: OTHER }), [
  makeElsewhere.user("o1", null),
  reply(makeElsewhere, "o2", "o1", { model: "gpt-5", provider: "openai", usage: usage(7, 0.01) }),
]);

/** Runs a command's run function in-process with captured output. */
async function capture(json: boolean, run: (ctx: CommandContext) => Promise<void>) {
  const { io, output } = capturedIO({}, PROJECT);
  await run(new CommandContext(new Cli(io), { root, json }));
  return output;
}

const stats = (ref: string | undefined, options: StatsOptions = {}, json = false) =>
  capture(json, (ctx) => runStats(ctx, ref, options, Date.parse("2026-03-05T00:00:00.000Z")));

describe("sessiontree stats", () => {
  test("one session, as text: totals, the abandoned branch, models and tools", async () => {
    const { stdout } = await stats(BRANCHED);
    assert.match(stdout, /entries +7 \(4 on the leaf's path, 3 abandoned\)/);
    assert.match(stdout, /tokens +1,303 · input 1,300 · output 3/);
    assert.match(stdout, /cost +\$1\.75/);
    assert.match(stdout, /abandoned +3 entries \(42\.9%\) · 1,001 tokens \(76\.8%\) · \$1\.00 in 1 branch/);
    assert.match(stdout, /u2a +a1 +3 +1,001 +\$1\.00 +user rewrite everything/);
    assert.match(stdout, /anthropic\/claude-sonnet-4-5 +3 +1,303 +\$1\.75/);
    assert.match(stdout, /write +1 +1 +1/);
    assert.doesNotMatch(stdout, /unknown/);
  });

  test("one session, --json", async () => {
    const out = JSON.parse((await stats(BRANCHED, {}, true)).stdout);
    assert.equal(out.sessionId, BRANCHED);
    assert.equal(out.path, branched);
    assert.equal(out.leafId, "a2b");
    assert.equal(out.total.tokens.total, 1303);
    assert.equal(out.leafPath.tokens.total, 302);
    assert.equal(out.abandoned.cost.total, 1);
    assert.equal(out.abandonedBranches[0].firstId, "u2a");
    assert.deepEqual(out.tools, [
      { name: "edit", calls: 1, results: 0, errors: 0 },
      { name: "write", calls: 1, results: 1, errors: 1 },
    ]);
  });

  test("an imported session says which usage is unknown instead of counting zeros", async () => {
    const { stdout } = await stats(IMPORTED);
    assert.match(stdout, /usage unknown for 1 of 2 assistant messages/);
    assert.match(stdout, /cost unknown for 2 of 2 assistant messages/);
    assert.match(stdout, /cost +unknown\n/);
    const out = JSON.parse((await stats(IMPORTED, {}, true)).stdout);
    assert.equal(out.imported, true);
    assert.equal(out.total.usageUnknown, 1);
    assert.equal(out.total.costUnknown, 1);
    assert.equal(out.total.tokens.total, 41);
  });

  test("without a session: the directory's sessions; --all adds the others", async () => {
    const here = JSON.parse((await stats(undefined, {}, true)).stdout);
    assert.equal(here.cwd, PROJECT);
    assert.equal(here.sessions, 2);
    assert.deepEqual(
      here.groups.map((g: Raw) => g.key),
      [IMPORTED, BRANCHED],
    );
    assert.equal(here.total.tokens.total, 1303 + 41);
    const all = JSON.parse((await stats(undefined, { all: true }, true)).stdout);
    assert.equal(all.sessions, 3);
    assert.equal(all.cwd, null);
    const text = (await stats(undefined, { all: true })).stdout;
    assert.match(text, /^3 sessions under /);
    assert.match(text, /by session/);
    // Ids that share 35 characters are shown whole: a prefix must name one session.
    assert.match(text, / {2}0195f0a0-0000-7000-8000-00000000000b {2}.* 1,303 +\$1\.75/);
  });

  test("--by model, --by cwd, --by day and --since", async () => {
    const byModel = JSON.parse((await stats(undefined, { all: true, by: "model" }, true)).stdout);
    assert.deepEqual(
      byModel.groups.map((g: Raw) => [g.key, (g.total as { tokens: { total: number } }).tokens.total]),
      [
        ["anthropic/claude-sonnet-4-5", 1344],
        ["openai/gpt-5", 8],
      ],
    );
    const byCwd = JSON.parse((await stats(undefined, { all: true, by: "cwd" }, true)).stdout);
    assert.deepEqual(
      byCwd.groups.map((g: Raw) => [g.key, g.sessions]),
      [
        [PROJECT, 2],
        [OTHER, 1],
      ],
    );
    const byDay = (await stats(undefined, { all: true, by: "day" })).stdout;
    assert.match(byDay, /by day/);
    const recent = JSON.parse((await stats(undefined, { all: true, since: "7d" }, true)).stdout);
    assert.equal(recent.sessions, 2, "the session of February is older than 7 days");
    assert.equal(recent.since, "2026-02-26T00:00:00.000Z");
    const one = JSON.parse((await stats(BRANCHED, { by: "day" }, true)).stdout);
    assert.equal(one.sessions, 1);
  });

  test("nothing to count says so", async () => {
    const { stdout } = await stats(undefined, { since: "2030-01-01T00:00:00Z" });
    assert.match(stdout, /^No session of .* with entries since 2030-01-01T00:00:00\.000Z/);
  });

  test("bad options are usage errors", async () => {
    await assert.rejects(stats(undefined, { by: "week" }), UsageError);
    await assert.rejects(stats(BRANCHED, { all: true }), UsageError);
    await assert.rejects(stats(undefined, { since: "last tuesday" }), UsageError);
    assert.equal(parseSince("2w", 1_000_000_000_000), 1_000_000_000_000 - 14 * 86_400_000);
    assert.equal(parseSince("2026-01-31", 0), new Date(2026, 0, 31).getTime());
  });
});

const diff = (a: string, b: string | undefined, json = false, session = BRANCHED) =>
  capture(json, (ctx) => runDiff(ctx, a, b, { session }));

describe("sessiontree diff", () => {
  test("text: where the branches part, each side's entries, tools and files", async () => {
    const { stdout } = await diff("r2a", "a2b");
    assert.match(stdout, /The branches part after a1: asst a1/);
    assert.match(
      stdout,
      /A r2a \(abandoned\) · 3 entries after · 1 tool call · 1 file written · 1,001 tokens/,
    );
    assert.match(stdout, /u2a +user +rewrite everything/);
    assert.match(stdout, /tools: write ×1 \(1 error\)/);
    assert.match(stdout, /files written:\n {4}src\/a\.ts \(write, 1 failed\)/);
    assert.match(stdout, /B a2b \(the leaf\) · 2 entries after/);
    assert.match(stdout, /files written on both branches: src\/a\.ts/);
  });

  test("--json, and the second entry defaults to the leaf", async () => {
    const out = JSON.parse((await diff("r2", undefined, true)).stdout);
    assert.equal(out.sessionId, BRANCHED);
    assert.equal(out.ancestor.id, "a1");
    assert.equal(out.a.targetId, "r2a", "a unique prefix names the entry");
    assert.equal(out.b.targetId, "a2b");
    assert.deepEqual(out.filesInBoth, ["src/a.ts"]);
    assert.deepEqual(
      out.a.entries.map((e: Raw) => e.id),
      ["u2a", "a2a", "r2a"],
    );
  });

  test("an entry on the other's path, and an unknown entry", async () => {
    const { stdout } = await diff("a1", "a2b");
    assert.match(stdout, /part after a1 \(A is on B's path\)/);
    assert.match(stdout, /\(nothing after the common ancestor\)/);
    await assert.rejects(diff("zz", "a1"), { code: "entry_not_found" });
    await assert.rejects(diff("u2", "a1"), UsageError, "u2 is ambiguous: u2a, u2b");
  });

  test("a v1 file (the pi fixture): a note says its ids change on every read", async () => {
    const { io, output } = capturedIO({}, PROJECT);
    const ctx = new CommandContext(new Cli(io), { root, json: false });
    const v1 = join(FIXTURES, "large-session.jsonl");
    await assert.rejects(runDiff(ctx, "0000", undefined, { session: v1 }), { code: "entry_not_found" });
    assert.match(
      output.stderr,
      /note: a v1 file has no entry ids; they change on every read until `sessiontree migrate /,
    );
  });
});

describe("the commands' declarations (options and arguments reach the run functions)", () => {
  /** The real program, with `stats` and `diff` added when program.ts does not register them yet. */
  async function run(args: string[]) {
    const { io, output } = capturedIO({}, PROJECT);
    const cli = new Cli(io);
    const program = buildProgram(cli);
    for (const [name, command] of [
      ["stats", statsCommand],
      ["diff", diffCommand],
    ] as const) {
      if (!program.commands.some((c) => c.name() === name)) command.register(program, cli);
    }
    await program.parseAsync(["--root", root, ...args], { from: "user" });
    return output;
  }

  test("stats SESSION --idle --json, and stats --all --by --since", async () => {
    const one = JSON.parse((await run(["stats", BRANCHED, "--idle", "0.01", "--json"])).stdout);
    assert.equal(one.time.idleGapMs, 600);
    assert.equal(one.time.activeMs, 0, "entries one second apart are all idle gaps at 0.6 s");
    const many = JSON.parse(
      (await run(["stats", "--all", "--by", "cwd", "--since", "2026-02-15T00:00:00Z", "--json"])).stdout,
    );
    assert.deepEqual(
      many.groups.map((g: Raw) => g.key),
      [PROJECT],
    );
    await assert.rejects(run(["stats", "--idle", "0"]), /expected a number of minutes > 0/);
  });

  test("diff A B -s SESSION --json, and diff --full", async () => {
    const out = JSON.parse((await run(["diff", "r2a", "a2b", "-s", BRANCHED, "--json"])).stdout);
    assert.equal(out.ancestor.id, "a1");
    const text = (await run(["diff", "u2a", "-s", BRANCHED, "--full"])).stdout;
    assert.match(text, /A u2a \(abandoned\) · 1 entry after/);
  });
});
