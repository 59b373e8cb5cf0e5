import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { SessionEntry } from "../../src/core/entry.js";
import { SessionTree } from "../../src/core/tree.js";
import { branchDiff } from "../../src/format/branch-diff.js";
import { filesWrittenBy, isFileTool } from "../../src/format/branch-diff-files.js";
import { decodeSession } from "../../src/format/jsonl/decode.js";
import { entryMaker } from "../support/messages.js";

const FIXTURES =
  process.env.SESSIONTREE_PI_FIXTURES ??
  join(dirname(fileURLToPath(import.meta.url)), "../../../shared/fixtures/pi");

type Raw = Record<string, unknown>;

function treeOf(entries: readonly SessionEntry[]): SessionTree {
  const tree = new SessionTree();
  for (const entry of entries) tree.load(entry);
  return tree;
}

const call = (id: string, name: string, args: Raw) => ({ type: "toolCall", id, name, arguments: args });

/**
 * u1 → a1 → u2a → a2a (pi: write src/a.ts, edit src/b.ts, bash) → r1 ok → r2 error      (abandoned)
 *          → u2b → a2b (Claude Code: Edit src/a.ts, MultiEdit src/c.ts, Read src/d.ts) (the leaf)
 */
function twoBranches() {
  const make = entryMaker();
  const reply = (id: string, parent: string, content: unknown[], input: number) => {
    const entry = make.assistant(id, parent) as SessionEntry & { message: Raw };
    entry.message = {
      ...entry.message,
      content,
      usage: { input, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: input + 1 },
    };
    return entry as SessionEntry;
  };
  const result = (id: string, parent: string, callId: string, toolName: string, isError: boolean) =>
    make.entry("message", id, parent, {
      message: { role: "toolResult", toolCallId: callId, toolName, content: [], isError },
    });
  return treeOf([
    make.user("u1", null, "fix the build"),
    reply("a1", "u1", [{ type: "text", text: "Looking." }], 10),
    make.user("u2a", "a1", "rewrite it"),
    reply(
      "a2a",
      "u2a",
      [
        call("c1", "write", { path: "src/a.ts", content: "x" }),
        call("c2", "edit", { path: "src/b.ts", oldText: "a", newText: "b" }),
        call("c3", "bash", { command: "echo hi > src/e.ts" }),
      ],
      100,
    ),
    result("r1", "a2a", "c1", "write", false),
    result("r2", "r1", "c2", "edit", true),
    make.user("u2b", "a1", "patch it"),
    reply(
      "a2b",
      "u2b",
      [
        call("k1", "Edit", { file_path: "src/a.ts", old_string: "a", new_string: "b" }),
        call("k2", "MultiEdit", { file_path: "src/c.ts", edits: [] }),
        call("k3", "Read", { file_path: "src/d.ts" }),
      ],
      50,
    ),
  ]);
}

describe("branch diff", () => {
  test("finds where two branches part and what each has after it", () => {
    const diff = branchDiff(twoBranches(), "r2", "a2b");
    assert.equal(diff.ancestor?.id, "a1");
    assert.deepEqual(
      diff.a.entries.map((e) => [e.id, e.role, e.tag]),
      [
        ["u2a", "user", "user"],
        ["a2a", "assistant", "asst"],
        ["r1", "toolResult", "tool:write"],
        ["r2", "toolResult", "tool:edit"],
      ],
    );
    assert.equal(diff.a.entries[0]?.text, "rewrite it");
    assert.equal(diff.a.entries[1]?.text, "→ write, edit, bash");
    assert.deepEqual(
      diff.b.entries.map((e) => e.id),
      ["u2b", "a2b"],
    );
    assert.equal(diff.a.onLeafPath, false);
    assert.equal(diff.b.onLeafPath, true);
    assert.deepEqual(
      diff.a.toolCalls.map((c) => [c.name, c.files, c.result]),
      [
        ["write", ["src/a.ts"], "ok"],
        ["edit", ["src/b.ts"], "error"],
        ["bash", [], null],
      ],
    );
    assert.deepEqual(diff.a.files, [
      { path: "src/a.ts", tools: ["write"], calls: 1, errors: 0 },
      { path: "src/b.ts", tools: ["edit"], calls: 1, errors: 1 },
    ]);
    assert.deepEqual(
      diff.b.files.map((f) => [f.path, f.tools]),
      [
        ["src/a.ts", ["Edit"]],
        ["src/c.ts", ["MultiEdit"]],
      ],
    );
    assert.deepEqual(diff.filesInBoth, ["src/a.ts"]);
    assert.equal(diff.a.usage.tokens.total, 101);
    assert.equal(diff.b.usage.tokens.total, 51);
  });

  test("an entry above the other: its side is empty and the ancestor is itself", () => {
    const diff = branchDiff(twoBranches(), "a1", "a2b");
    assert.equal(diff.ancestor?.id, "a1");
    assert.deepEqual(diff.a.entries, []);
    assert.deepEqual(
      diff.b.entries.map((e) => e.id),
      ["u2b", "a2b"],
    );
  });

  test("the same entry twice: nothing differs", () => {
    const diff = branchDiff(twoBranches(), "r1", "r1");
    assert.equal(diff.ancestor?.id, "r1");
    assert.deepEqual([diff.a.entries, diff.b.entries], [[], []]);
  });

  test("entries of two unconnected trees share no ancestor", () => {
    const make = entryMaker();
    const tree = treeOf([make.user("x1", null), make.user("x2", "x1"), make.user("y1", null)]);
    const diff = branchDiff(tree, "x2", "y1");
    assert.equal(diff.ancestor, null);
    assert.deepEqual(
      diff.a.entries.map((e) => e.id),
      ["x1", "x2"],
    );
    assert.deepEqual(
      diff.b.entries.map((e) => e.id),
      ["y1"],
    );
  });

  test("an unknown id is entry_not_found", () => {
    assert.throws(() => branchDiff(twoBranches(), "nope", "a1"), { code: "entry_not_found" });
  });
});

describe("files written by tool calls", () => {
  test("pi, Claude Code and Codex tool names and argument keys", () => {
    assert.deepEqual(filesWrittenBy("write", { path: "a" }), ["a"]);
    assert.deepEqual(filesWrittenBy("edit", { path: "b" }), ["b"]);
    assert.deepEqual(filesWrittenBy("Write", { file_path: "c" }), ["c"]);
    assert.deepEqual(filesWrittenBy("NotebookEdit", { notebook_path: "n.ipynb" }), ["n.ipynb"]);
    const patch = [
      "*** Begin Patch",
      "*** Update File: src/x.ts",
      "@@",
      "-a",
      "+b",
      "*** Add File: src/y.ts",
      "+new",
      "*** Update File: src/x.ts",
      "*** Move to: src/z.ts",
      "*** End Patch",
    ].join("\n");
    assert.deepEqual(filesWrittenBy("apply_patch", { input: patch }), ["src/x.ts", "src/y.ts", "src/z.ts"]);
    assert.deepEqual(filesWrittenBy("read", { path: "a" }), []);
    assert.deepEqual(filesWrittenBy("bash", { command: "touch a" }), []);
    assert.deepEqual(filesWrittenBy("write", {}), []);
    assert.deepEqual(filesWrittenBy("write", null), []);
    assert.equal(isFileTool("Edit"), true);
    assert.equal(isFileTool("Read"), false);
  });

  test("on the pi fixture, the files of the whole path are the write/edit paths, counted by hand", () => {
    const text = readFileSync(join(FIXTURES, "large-session.jsonl"), "utf8");
    const expected = new Map<string, number>();
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      const message = (JSON.parse(line) as Raw).message as Raw | undefined;
      if (message?.role !== "assistant") continue;
      for (const block of message.content as Raw[]) {
        if (block.type !== "toolCall" || (block.name !== "write" && block.name !== "edit")) continue;
        const path = (block.arguments as Raw).path as string;
        expected.set(path, (expected.get(path) ?? 0) + 1);
      }
    }
    const tree = treeOf(decodeSession(text).entries.map((e) => e.entry));
    const first = tree.getEntries()[0] as SessionEntry;
    const diff = branchDiff(tree, first.id, tree.getLeafId() as string);
    assert.equal(diff.ancestor?.id, first.id);
    assert.equal(diff.b.entries.length, tree.getEntries().length - 1);
    assert.ok(expected.size > 5);
    assert.deepEqual(new Map(diff.b.files.map((f) => [f.path, f.calls])), expected);
  });
});
