import assert from "node:assert/strict";
import { appendFileSync, copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { projectContext } from "../../src/core/context.js";
import { SessionFile } from "../../src/file/session-file.js";
import { IndexedBacking } from "../../src/session/backing/indexed-backing.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { messageMaker } from "../support/messages.js";

// A malformed entry (a known type whose own fields are missing or wrong: core/validate.ts) holds its
// place and gives nothing. A resume through the sidecar index must give the context the whole read
// gives, wherever on the path such an entry lies.

const dir = mkdtempSync(join(tmpdir(), "sessiontree-malformed-resume-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const { user, assistant } = messageMaker();

/**
 * Over 1 MiB (smaller files are read whole), most of it on an abandoned branch (a path holding
 * most of the bytes is read whole too), with a compaction; its path, leaf and a kept entry.
 */
function writeBase(): { path: string; leaf: string; beforeCompaction: string } {
  const sm = SessionManager.create("/tmp/project", dir);
  const first = sm.appendMessage(user("first"));
  sm.appendMessage(assistant("a long tool output ".repeat(60_000)));
  sm.branch(first);
  sm.appendThinkingLevelChange("medium");
  const beforeCompaction = sm.appendMessage(assistant("before the compaction"));
  sm.appendCompaction("summary", first, 1234);
  sm.appendMessage(user("after"));
  const leaf = sm.appendMessage(assistant("after answer"));
  sm.close();
  return { path: sm.getSessionFile() as string, leaf, beforeCompaction };
}

const base = writeBase();
const at = "2026-01-01T00:00:00.000Z";

/** A copy of the base session with `records` appended, each the child of the one before. */
function withLines(name: string, records: Array<Record<string, unknown>>): string {
  const path = join(dir, `${name}.jsonl`);
  copyFileSync(base.path, path);
  let parentId = base.leaf;
  for (const [i, record] of records.entries()) {
    const id = `${name}-${i}`;
    // The type first, as writers put it: the indexer then reads the line's start, not the line.
    appendFileSync(
      path,
      `${JSON.stringify({ type: record.type, id, parentId, timestamp: at, ...record })}\n`,
    );
    parentId = id;
  }
  appendFileSync(
    path,
    `${JSON.stringify({ type: "message", id: `${name}-end`, parentId, timestamp: at, message: user("end") })}\n`,
  );
  return path;
}

function wholeContext(path: string) {
  const file = SessionFile.open(path);
  try {
    return projectContext(file.tree.getBranch());
  } finally {
    file.close();
  }
}

function readWhole(manager: SessionManager): boolean {
  return !((manager as unknown as { backing: unknown }).backing instanceof IndexedBacking);
}

describe("a resume through the index gives the whole read's context", () => {
  test("with no malformed entry, through the index (the control)", () => {
    const path = withLines("control", [{ type: "thinking_level_change", thinkingLevel: "high" }]);
    for (let open = 0; open < 2; open++) {
      const manager = SessionManager.open(path, dir);
      assert.deepStrictEqual(manager.buildSessionContext(), wholeContext(path));
      assert.equal(manager.buildSessionContext().thinkingLevel, "high");
      assert.equal(readWhole(manager), false);
      manager.close();
    }
  });

  const cases: Array<
    [string, Array<Record<string, unknown>>, (context: ReturnType<typeof wholeContext>) => void]
  > = [
    [
      "the last thinking level change",
      [{ type: "thinking_level_change", thinking_level: "high" }],
      (context) => assert.equal(context.thinkingLevel, "medium"),
    ],
    [
      "the last model change",
      [{ type: "model_change", model: "openai/gpt-5.2" }],
      (context) => assert.notEqual(context.model?.modelId, undefined),
    ],
    [
      "the last compaction (no summary)",
      [{ type: "compaction", firstKeptEntryId: base.beforeCompaction, tokensBefore: 1 }],
      // The compaction in force is the base session's, whose summary is "summary".
      (context) => assert.equal((context.messages[0] as { summary?: unknown }).summary, "summary"),
    ],
    [
      "a message without a role",
      [{ type: "message", message: { content: "who said this?" } }],
      (context) => assert.ok(context.messages.every((m) => typeof m.role === "string")),
    ],
    [
      "a custom entry without a customType",
      [{ type: "custom", data: { n: 2 } }],
      (context) => assert.deepEqual(Object.keys(context.extensionState), []),
    ],
    [
      "a custom message without a customType",
      [{ type: "custom_message", content: "note", display: true }],
      (context) => assert.ok(context.messages.every((m) => m.role !== "custom")),
    ],
    [
      "a message with no timestamp",
      [{ type: "message", message: user("said at no time"), timestamp: undefined }],
      // Its message reaches the model, as in pi: a whole read and an index resume alike.
      (context) => assert.equal(context.messages.at(-2)?.role, "user"),
    ],
    [
      "a thinking level change whose timestamp is a number",
      [{ type: "thinking_level_change", thinkingLevel: "high", timestamp: 1767225600000 }],
      (context) => assert.equal(context.thinkingLevel, "medium"),
    ],
  ];
  for (const [name, records, check] of cases) {
    test(`with a malformed entry: ${name}`, () => {
      const path = withLines(name.replace(/\W+/g, "-"), records);
      const expected = wholeContext(path);
      check(expected);
      for (let open = 0; open < 2; open++) {
        const manager = SessionManager.open(path, dir);
        assert.deepStrictEqual(manager.buildSessionContext(), expected, `${name}, open ${open}`);
        assert.deepEqual(
          manager
            .getBranch()
            .map((e) => e.id)
            .slice(-2),
          [`${name.replace(/\W+/g, "-")}-0`, `${name.replace(/\W+/g, "-")}-end`],
        );
        assert.ok(
          manager.getIssues().some((issue) => issue.code === "malformed_entry"),
          `${name}: reported`,
        );
        manager.close();
      }
    });
  }
});
