import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { SessionEntry } from "../../src/core/entry.js";
import { SessionTree } from "../../src/core/tree.js";
import { decodeSession } from "../../src/format/jsonl/decode.js";
import { RootStatsBuilder, type SessionInput, sessionStats } from "../../src/format/stats.js";
import { usageOf } from "../../src/format/stats-usage.js";
import { entryMaker } from "../support/messages.js";

const FIXTURES =
  process.env.SESSIONTREE_PI_FIXTURES ??
  join(dirname(fileURLToPath(import.meta.url)), "../../../shared/fixtures/pi");

function treeOf(entries: readonly SessionEntry[]): SessionTree {
  const tree = new SessionTree();
  for (const entry of entries) tree.load(entry);
  return tree;
}

type Raw = Record<string, unknown>;

/** The sums the stats must equal, computed with a plain loop over the JSONL lines. */
function sumsByHand(text: string) {
  const sums = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, assistants: 0, calls: 0 };
  const errors = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const record = JSON.parse(line) as Raw;
    const message = record.message as Raw | undefined;
    if (record.type !== "message" || !message) continue;
    if (message.role === "toolResult" && message.isError === true) {
      const name = message.toolName as string;
      errors.set(name, (errors.get(name) ?? 0) + 1);
    }
    if (message.role !== "assistant") continue;
    const usage = message.usage as Raw;
    sums.assistants++;
    sums.input += usage.input as number;
    sums.output += usage.output as number;
    sums.cacheRead += usage.cacheRead as number;
    sums.cacheWrite += usage.cacheWrite as number;
    sums.cost += (usage.cost as Raw).total as number;
    for (const block of message.content as Raw[]) if (block.type === "toolCall") sums.calls++;
  }
  return { sums, errors };
}

describe("stats on the pi fixtures: totals equal the sum of the entries' usage", () => {
  for (const name of ["large-session.jsonl", "before-compaction.jsonl"]) {
    test(name, () => {
      const text = readFileSync(join(FIXTURES, name), "utf8");
      const { sums, errors } = sumsByHand(text);
      const decoded = decodeSession(text);
      assert.equal(decoded.issues.length, 0);
      const stats = sessionStats(treeOf(decoded.entries.map((e) => e.entry)));
      const { tokens, cost } = stats.total;
      assert.ok(sums.assistants > 400, "the fixture has hundreds of replies");
      assert.deepEqual(
        { ...tokens },
        {
          input: sums.input,
          output: sums.output,
          cacheRead: sums.cacheRead,
          cacheWrite: sums.cacheWrite,
          total: sums.input + sums.output + sums.cacheRead + sums.cacheWrite,
        },
      );
      assert.ok(Math.abs(cost.total - sums.cost) < 1e-6, `${cost.total} vs ${sums.cost}`);
      assert.equal(stats.total.assistantMessages, sums.assistants);
      assert.equal(stats.total.usageUnknown, 0);
      assert.equal(stats.total.costUnknown, 0);
      assert.equal(stats.total.toolCalls, sums.calls);
      for (const [tool, count] of errors)
        assert.equal(stats.tools.find((t) => t.name === tool)?.errors, count);
      // A linear session: everything is on the leaf's path, nothing was abandoned.
      assert.deepEqual(stats.leafPath, stats.total);
      assert.equal(stats.abandoned.entries, 0);
      assert.deepEqual(stats.abandonedBranches, []);
      // The models' rows add up to the total.
      const modelTokens = stats.models.reduce((sum, m) => sum + m.tokens.total, 0);
      assert.equal(modelTokens, tokens.total);
    });
  }
});

const usage = (input: number, output: number, cost?: number) => ({
  input,
  output,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: input + output,
  ...(cost === undefined ? {} : { cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost } }),
});

/**
 * u1 → a1 → u2a → a2a (calls bash) → r2a (error)      abandoned by a rewind to a1
 *          → u2b → a2b                                 the leaf's path
 */
function branchedSession() {
  const make = entryMaker();
  const reply = (id: string, parent: string, used: object, extra: Raw = {}) => {
    const entry = make.assistant(id, parent) as SessionEntry & { message: Raw };
    entry.message = { ...entry.message, usage: used, ...extra };
    return entry as SessionEntry;
  };
  const entries = [
    make.user("u1", null),
    reply("a1", "u1", usage(100, 10, 0.5)),
    make.user("u2a", "a1", "try the other way"),
    reply("a2a", "u2a", usage(1000, 100, 2), {
      content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "make" } }],
    }),
    make.entry("message", "r2a", "a2a", {
      message: { role: "toolResult", toolCallId: "c1", toolName: "bash", content: [], isError: true },
    }),
    make.user("u2b", "a1"),
    reply("a2b", "u2b", usage(300, 30, 1)),
  ];
  return treeOf(entries);
}

describe("stats of a branched session", () => {
  test("splits the leaf's path from the abandoned branch, and says what the rewind cost", () => {
    const stats = sessionStats(branchedSession());
    assert.equal(stats.entries, 7);
    assert.equal(stats.leafPath.entries, 4);
    assert.equal(stats.abandoned.entries, 3);
    assert.equal(stats.total.tokens.total, 110 + 1100 + 330);
    assert.equal(stats.leafPath.tokens.total, 440);
    assert.equal(stats.abandoned.tokens.total, 1100);
    assert.equal(stats.abandoned.cost.total, 2);
    assert.equal(stats.total.cost.total, 3.5);
    assert.equal(stats.abandonedShare.entries, 3 / 7);
    assert.equal(stats.abandonedShare.tokens, 1100 / 1540);
    assert.equal(stats.abandonedBranches.length, 1);
    const [branch] = stats.abandonedBranches;
    assert.equal(branch?.firstId, "u2a");
    assert.equal(branch?.forkedFrom, "a1");
    assert.equal(branch?.tag, "user");
    assert.equal(branch?.text, "try the other way");
    assert.equal(branch?.tally.entries, 3);
    assert.equal(branch?.tally.toolErrors, 1);
    assert.deepEqual(stats.tools, [{ name: "bash", calls: 1, results: 1, errors: 1 }]);
    assert.equal(stats.total.toolCalls, 1);
    assert.equal(stats.total.toolErrors, 1);
  });

  test("a rewind with no append after it moves the path: the other branch becomes the abandoned one", () => {
    const tree = branchedSession();
    tree.branch("r2a");
    const stats = sessionStats(tree);
    assert.equal(stats.leafPath.tokens.total, 110 + 1100);
    assert.deepEqual(
      stats.abandonedBranches.map((b) => [b.firstId, b.tally.entries]),
      [["u2b", 2]],
    );
  });

  test("each subtree off the path is its own branch, deep ones included (no recursion)", () => {
    const make = entryMaker();
    const entries: SessionEntry[] = [make.user("root", null)];
    // A 50,000-entry abandoned chain under the root, then the path.
    for (let i = 0; i < 50_000; i++) entries.push(make.user(`x${i}`, i === 0 ? "root" : `x${i - 1}`));
    entries.push(make.user("side", "root"), make.user("leaf", "root"));
    const stats = sessionStats(treeOf(entries));
    assert.deepEqual(
      stats.abandonedBranches.map((b) => [b.firstId, b.tally.entries]),
      [
        ["x0", 50_000],
        ["side", 1],
      ],
    );
  });
});

describe("stats of a damaged tree", () => {
  test("a parent cycle off the path is counted once and the walk ends", () => {
    const make = entryMaker();
    // x and y are each other's parent; z hangs under x; the path is the root alone.
    const entries = [make.user("z", "x"), make.user("x", "y"), make.user("y", "x"), make.user("root", null)];
    const stats = sessionStats(treeOf(entries));
    assert.equal(stats.entries, 4);
    assert.equal(stats.leafPath.entries, 1);
    assert.equal(stats.abandoned.entries, 3);
    const counted = stats.abandonedBranches.reduce((sum, b) => sum + b.tally.entries, 0);
    assert.equal(counted, 3);
  });
});

describe("usage that is not known is never counted as zero", () => {
  test("a reply without usage is 'usage unknown'; one without cost is 'cost unknown'", () => {
    const make = entryMaker();
    const noUsage = make.assistant("a1", "u1") as SessionEntry & { message: Raw };
    noUsage.message = { ...noUsage.message, usage: undefined };
    const noCost = make.assistant("a2", "a1") as SessionEntry & { message: Raw };
    noCost.message = { ...noCost.message, usage: usage(5, 5) };
    const stats = sessionStats(treeOf([make.user("u1", null), noUsage, noCost]));
    assert.equal(stats.total.assistantMessages, 2);
    assert.equal(stats.total.usageUnknown, 1);
    assert.equal(stats.total.costUnknown, 1);
    assert.equal(stats.total.tokens.total, 10);
    assert.equal(stats.total.cost.total, 0);
  });

  test("in an imported session, the importers' zero placeholders are unknown; real counts are kept", () => {
    const zero = { role: "assistant", content: [], usage: usage(0, 0, 0) };
    const counted = { role: "assistant", content: [], usage: usage(40, 2, 0) };
    assert.equal(usageOf(zero, true), null);
    assert.deepEqual(usageOf(zero, false)?.tokens.total, 0, "pi's own zero (an aborted reply) is a zero");
    assert.equal(usageOf(counted, true)?.tokens.total, 42);
    assert.equal(usageOf(counted, true)?.cost, null, "Claude Code records no price");
    assert.equal(usageOf(counted, false)?.cost?.total, 0);
    assert.equal(usageOf({ role: "assistant", usage: {} }), null);
    assert.equal(usageOf({ role: "assistant", usage: { input: "many" } }), null);
  });
});

describe("time spent", () => {
  function timed(times: string[]): SessionTree {
    const make = entryMaker();
    const entries = times.map((time, i) => ({
      ...make.user(`e${i}`, i === 0 ? null : `e${i - 1}`),
      timestamp: time,
    }));
    return treeOf(entries as SessionEntry[]);
  }

  test("active time leaves out gaps over the idle gap; wall time is first to last", () => {
    const tree = timed([
      "2026-01-01T10:00:00.000Z",
      "2026-01-01T10:05:00.000Z", // 5 min: active
      "2026-01-01T12:00:00.000Z", // 1h55: idle
      "2026-01-01T12:09:00.000Z", // 9 min: active
      "not a time",
    ]);
    const stats = sessionStats(tree);
    assert.equal(stats.time.wallMs, 2 * 3_600_000 + 9 * 60_000);
    assert.equal(stats.time.activeMs, 14 * 60_000);
    assert.equal(stats.time.undatedEntries, 1);
    assert.equal(stats.time.first, "2026-01-01T10:00:00.000Z");
    assert.equal(stats.time.last, "2026-01-01T12:09:00.000Z");
    assert.equal(sessionStats(tree, { idleGapMs: 6 * 60_000 }).time.activeMs, 5 * 60_000);
  });

  test("since keeps the entries at or after it", () => {
    const tree = timed(["2026-01-01T10:00:00.000Z", "2026-01-02T10:00:00.000Z", "2026-01-02T10:01:00.000Z"]);
    const stats = sessionStats(tree, { since: Date.parse("2026-01-02T00:00:00.000Z") });
    assert.equal(stats.entries, 2);
    assert.equal(stats.time.first, "2026-01-02T10:00:00.000Z");
    assert.equal(stats.time.activeMs, 60_000);
  });
});

describe("stats over many sessions", () => {
  function session(id: string, cwd: string, day: string, model: string, input: number): SessionInput {
    const make = entryMaker(Date.parse(`${day}T08:00:00.000Z`));
    const reply = make.assistant(`${id}-a`, `${id}-u`, "done", {
      model,
      content: [{ type: "toolCall", id: `${id}-c`, name: "read", arguments: {} }],
    }) as SessionEntry & { message: Raw };
    reply.message = { ...reply.message, usage: usage(input, 0, input / 1000) };
    const result = make.entry("message", `${id}-r`, `${id}-a`, {
      message: { role: "toolResult", toolCallId: `${id}-c`, toolName: "read", content: [], isError: true },
    });
    const tree = treeOf([make.user(`${id}-u`, null), reply, result]);
    return { tree, sessionId: id, path: `/sessions/${id}.jsonl`, cwd, name: null, imported: false };
  }
  const sessions = [
    session("s1", "/a", "2026-01-01", "m1", 100),
    session("s2", "/a", "2026-01-02", "m2", 300),
    session("s3", "/b", "2026-01-02", "m1", 50),
  ];

  function build(by: "session" | "day" | "model" | "cwd", since?: number) {
    const builder = new RootStatsBuilder({ by, since });
    const added = sessions.map((s) => builder.add(s));
    return { stats: builder.build(), added };
  }

  test("totals over every session, rows per session latest first (then by id)", () => {
    const { stats } = build("session");
    assert.equal(stats.sessions, 3);
    assert.equal(stats.total.tokens.total, 450);
    assert.equal(stats.total.cost.total, 0.45);
    assert.equal(stats.time.wallMs, 3 * 2000, "each session's own first to last entry, summed");
    assert.deepEqual(
      stats.groups.map((g) => [g.key, g.path, g.total.tokens.total]),
      [
        ["s2", "/sessions/s2.jsonl", 300],
        ["s3", "/sessions/s3.jsonl", 50],
        ["s1", "/sessions/s1.jsonl", 100],
      ],
    );
  });

  test("by day, by model and by cwd", () => {
    assert.deepEqual(
      build("day").stats.groups.map((g) => [g.key, g.sessions, g.total.tokens.total, g.total.entries]),
      [
        ["2026-01-01", 1, 100, 3],
        ["2026-01-02", 2, 350, 6],
      ],
    );
    // A model's rows hold its replies and the results of the calls it made, not the user's messages.
    assert.deepEqual(
      build("model").stats.groups.map((g) => [
        g.key,
        g.sessions,
        g.total.tokens.total,
        g.total.entries,
        g.total.toolErrors,
      ]),
      [
        ["anthropic/m2", 1, 300, 2, 1],
        ["anthropic/m1", 2, 150, 4, 2],
      ],
    );
    assert.deepEqual(
      build("cwd").stats.groups.map((g) => [g.key, g.sessions, g.total.tokens.total]),
      [
        ["/a", 2, 400],
        ["/b", 1, 50],
      ],
    );
  });

  test("since drops sessions with nothing after it", () => {
    const { stats, added } = build("session", Date.parse("2026-01-02T00:00:00.000Z"));
    assert.deepEqual(added, [false, true, true]);
    assert.equal(stats.sessions, 2);
    assert.equal(stats.since, "2026-01-02T00:00:00.000Z");
    assert.equal(stats.total.tokens.total, 350);
  });
});
