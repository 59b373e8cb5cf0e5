import assert from "node:assert/strict";
import { appendFileSync, copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { drawThroughIndex } from "../../src/cli/commands/tree-indexed.js";
import { main } from "../../src/cli/main.js";
import { renderTree } from "../../src/cli/render/tree.js";
import { LEAF_MARKER_TYPE } from "../../src/core/entry.js";
import { migrateFile } from "../../src/file/migrate.js";
import { dropCachedIndex } from "../../src/file/sidecar-index.js";
import { SIDECHAIN_TYPE, subagentNames } from "../../src/format/describe.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { capturedIO } from "../support/captured-io.js";
import { Random } from "../support/random.js";
import { tempFolders } from "../support/temp-folders.js";
import { runCountingWholeReads } from "./whole-reads.js";

const folders = tempFolders("sessiontree-tree-index");
const FIXTURES =
  process.env.SESSIONTREE_PI_FIXTURES ?? new URL("../../../shared/fixtures/pi/", import.meta.url).pathname;
const NO_COLORS = {
  bold: id,
  dim: id,
  cyan: id,
  green: id,
  yellow: id,
  red: id,
  magenta: id,
  blue: id,
  gray: id,
};

function id(text: string): string {
  return text;
}

/** `tree`'s drawing from a whole read, as the command drew it before the index could. */
function drawnWhole(path: string, collapseOver: number) {
  const manager = SessionManager.open(path, undefined, undefined, { open: "whole" });
  try {
    const entries = manager.getEntries();
    return {
      sessionId: manager.getSessionId(),
      name: manager.getSessionName(),
      count: entries.length,
      lines: renderTree(manager.getTree(), {
        leafId: manager.getLeafId(),
        colors: NO_COLORS as never,
        width: 120,
        collapseOver,
        subagents: subagentNames(entries),
      }),
      issues: manager.getIssues(),
    };
  } finally {
    manager.close();
  }
}

function drawnIndexed(path: string, collapseOver: number) {
  return drawThroughIndex(path, { colors: NO_COLORS as never, width: 120, collapseOver });
}

/** A random pi v3 session: branches, labels set and cleared, names, summaries, custom entries, siblings out of time order. */
function randomSession(path: string, seed: number, size: number): void {
  const rng = new Random(seed);
  const random = () => rng.next();
  const lines: object[] = [
    { type: "session", version: 3, id: `s-${seed}`, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" },
  ];
  const ids: string[] = [];
  let tip: string | null = null;
  for (let i = 0; i < size; i++) {
    const entryId = `e${seed.toString(16)}x${i.toString(16).padStart(5, "0")}`;
    // Now and then continue from an older entry (a branch), with a time earlier than its siblings'.
    const branchFrom =
      ids.length > 3 && random() < 0.06 ? (ids[Math.floor(random() * ids.length)] as string) : null;
    const parentId = branchFrom ?? tip;
    const minute = branchFrom ? Math.floor(random() * size) : i;
    const timestamp = new Date(Date.UTC(2026, 0, 1, 0, minute, i % 60)).toISOString();
    const roll = random();
    const base = { id: entryId, parentId, timestamp };
    let entry: object;
    if (roll < 0.04 && ids.length > 0) {
      const target = ids[Math.floor(random() * ids.length)];
      entry = { type: "label", ...base, targetId: target, label: random() < 0.3 ? "" : `mark ${i}` };
    } else if (roll < 0.06)
      entry = { type: "session_info", ...base, name: random() < 0.3 ? " " : `name ${i}` };
    else if (roll < 0.08) entry = { type: "custom", ...base, customType: "ext.state", data: { i } };
    else if (roll < 0.09 && ids.length > 0)
      entry = {
        type: "compaction",
        ...base,
        summary: `summary ${i}`,
        firstKeptEntryId: ids[0],
        tokensBefore: 10,
      };
    else if (roll < 0.1)
      entry = { type: "branch_summary", ...base, fromId: ids[0] ?? "x", summary: `left ${i}` };
    else if (roll < 0.11) entry = { type: "model_change", ...base, provider: "anthropic", modelId: "m" };
    else if (roll < 0.55)
      entry = { type: "message", ...base, message: { role: "user", content: `ask ${i}`, timestamp: i } };
    else
      entry = {
        type: "message",
        ...base,
        message: {
          role: "assistant",
          content: [{ type: "text", text: `answer ${i} ${"word ".repeat(i % 7)}` }],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "m",
          usage: {
            input: 1,
            output: 1,
            cacheRead: 0,
            cacheWrite: 0,
            totalTokens: 2,
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
          },
          stopReason: "stop",
          timestamp: i,
        },
      };
    lines.push(entry);
    ids.push(entryId);
    tip = entryId;
  }
  // Rewound with nothing appended since: sessiontree's leaf marker, hidden from the tree.
  if (seed % 2 === 0 && ids.length > 10) {
    const leaf = ids[ids.length - 8];
    lines.push({
      type: "custom",
      id: `m${seed}`,
      parentId: leaf,
      timestamp: "2026-01-02T00:00:00.000Z",
      customType: LEAF_MARKER_TYPE,
    });
  }
  writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
}

describe("tree through the sidecar index", () => {
  it("draws what the whole read draws: random sessions, collapsed at several widths", () => {
    const dir = folders.fresh();
    let compared = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const path = join(dir, `s${seed}.jsonl`);
      randomSession(path, seed, 20 + seed * 17);
      for (const collapseOver of [8, 3, 1]) {
        const indexed = drawnIndexed(path, collapseOver);
        const whole = drawnWhole(path, collapseOver);
        assert.ok(indexed, `seed ${seed}: the index should draw it`);
        assert.deepEqual(whole.issues, [], `seed ${seed}`);
        const { issues: _, ...drawn } = whole;
        assert.deepEqual(indexed, drawn, `seed ${seed}, collapse ${collapseOver}`);
        compared++;
      }
    }
    assert.equal(compared, 120);
  });

  it("draws the pi fixtures as the whole read does", () => {
    const dir = folders.fresh();
    const fixtures = readdirSync(FIXTURES).filter((name) => name.endsWith(".jsonl"));
    assert.ok(fixtures.length >= 2);
    for (const name of fixtures) {
      const path = join(dir, name);
      copyFileSync(join(FIXTURES, name), path);
      const indexed = drawnIndexed(path, 8);
      const version = JSON.parse(readFileSync(path, "utf8").split("\n")[0] as string).version ?? 1;
      // Older formats are not indexed (they are migrated as they are read whole) until migrated on disk.
      if (version < 3) {
        assert.equal(indexed, null, name);
        migrateFile(path);
      }
      const { issues: _, ...drawn } = drawnWhole(path, 8);
      assert.deepEqual(drawnIndexed(path, 8), drawn, name);
      assert.ok(drawn.count > 900, name);
    }
  });

  it("gives way to the whole read where the index cannot answer alike", () => {
    const dir = folders.fresh();
    const path = join(dir, "s.jsonl");
    randomSession(path, 7, 80);
    assert.ok(drawnIndexed(path, 8));
    // A torn last line, a blank line, a parent that comes later: a whole read reports or places these.
    appendFileSync(path, '{"type":"message","id":"torn"');
    assert.equal(drawnIndexed(path, 8), null);
    writeFileSync(path, readFileSync(path, "utf8").replace(/\{"type":"message","id":"torn"$/, "\n"));
    assert.equal(drawnIndexed(path, 8), null);
    randomSession(path, 7, 80);
    const text = readFileSync(path, "utf8").trimEnd().split("\n");
    const [last] = text.splice(-1, 1);
    text.splice(5, 0, last as string);
    writeFileSync(path, `${text.join("\n")}\n`);
    dropCachedIndex(path);
    assert.equal(drawnIndexed(path, 8), null);
    // A Claude Code subagent's line is named from the lines around it.
    randomSession(path, 7, 80);
    const sidechain = { customType: SIDECHAIN_TYPE, data: { message: { content: "sub" } } };
    const tail = { type: "custom", id: "side1", parentId: "e7x0004f", timestamp: "2026-01-03T00:00:00.000Z" };
    appendFileSync(path, `${JSON.stringify({ ...tail, ...sidechain })}\n`);
    assert.ok(drawnWhole(path, 8).count > 80);
    assert.equal(drawnIndexed(path, 8), null);
  });

  it("reads a line drawn that is not what the index says whole, and reports it", async () => {
    const dir = folders.fresh();
    const path = join(dir, "s.jsonl");
    randomSession(path, 9, 300);
    assert.ok(drawnIndexed(path, 8));
    // The first entry (a root: always drawn) keeps its start, which is all the indexer scans, and
    // its length, but is no longer JSON.
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    lines[1] = `${(lines[1] as string).slice(0, -1)}]`;
    writeFileSync(path, `${lines.join("\n")}\n`);
    assert.equal(drawnIndexed(path, 8), null);
    const { io, output } = capturedIO({ SESSIONTREE_ROOT: dir }, dir);
    assert.equal(await main(["tree", path], io), 0, output.stderr);
    assert.match(output.stdout, /^name 284 299 entries/);
    // The line, and its child's parent now missing.
    assert.match(output.stderr, /2 issue\(s\) reading this session/);
  });

  it("reads no session whole for a collapsed drawing; --json and --full still do", async () => {
    const dir = folders.fresh();
    const path = join(dir, "s.jsonl");
    randomSession(path, 11, 2_000);
    for (const [args, reads] of [
      [["tree", path], 0],
      [["tree", path, "--json"], 1],
      [["tree", path, "--full"], 1],
    ] as const) {
      const { code, err, wholeReads } = await runCountingWholeReads(args, { SESSIONTREE_ROOT: dir }, dir);
      assert.equal(code, 0, err);
      assert.equal(wholeReads, reads, args.join(" "));
    }
  });
});
