import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { isSessionTreeError } from "../../src/core/errors.js";
import { SessionFile } from "../../src/file/session-file.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { tempFolders } from "../support/temp-folders.js";
import { assistant, contextTexts, user } from "./support/scenario.js";

const { fresh: freshDir } = tempFolders("st-invariants");

const T = "2026-01-01T00:00:00.000Z";
const header = { type: "session", version: 3, id: "s1", timestamp: T, cwd: "/p" };
const entry = (id: string, parentId: string | null) => ({
  type: "message",
  id,
  parentId,
  timestamp: T,
  message: user(id),
});
const jsonl = (...values: unknown[]) => values.map((v) => `${JSON.stringify(v)}\n`).join("");

function headerCount(path: string): number {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() && JSON.parse(line).type === "session").length;
}

/** Runs `fn` and asserts the file's bytes grew by appending only. */
function appendsOnly(path: string, fn: () => void, what: string): void {
  const before = readFileSync(path);
  fn();
  const now = readFileSync(path);
  assert.ok(now.subarray(0, before.length).equals(before), `${what}: old bytes are a prefix of the new`);
}

describe("invariants of the foundation", () => {
  test("append-only and exactly one header, through appends, rewinds, summaries, labels and reopening", () => {
    const sm = SessionManager.create("/p", freshDir());
    const u1 = sm.appendMessage(user("u1"));
    const path = sm.getSessionFile() as string;
    appendsOnly(path, () => sm.appendMessage(assistant("a1")), "append");
    appendsOnly(path, () => sm.branch(u1), "branch");
    appendsOnly(path, () => sm.resetLeaf(), "resetLeaf");
    appendsOnly(path, () => sm.branchWithSummary(u1, "summary"), "branchWithSummary");
    appendsOnly(path, () => sm.appendLabelChange(u1, "label"), "label");
    appendsOnly(path, () => sm.appendCompaction("c", u1, 5), "compaction");
    sm.close();
    const reopened = SessionManager.open(path);
    appendsOnly(path, () => reopened.appendMessage(user("after reopen")), "append after reopen");
    appendsOnly(path, () => reopened.branch(u1), "branch after reopen");
    reopened.close();
    assert.equal(headerCount(path), 1);
    assert.equal(JSON.parse(readFileSync(path, "utf8").split("\n")[0] as string).type, "session");
  });

  test("each append is in the file when the call returns, before any assistant message", () => {
    const sm = SessionManager.create("/p", freshDir());
    const id = sm.appendMessage(user("only a user message"));
    const onDisk = readFileSync(sm.getSessionFile() as string, "utf8");
    assert.ok(onDisk.includes(`"id":"${id}"`));
    assert.equal(headerCount(sm.getSessionFile() as string), 1);
    sm.close();
  });

  test("the context is the leaf's path only: never file order, never another branch", () => {
    const dir = freshDir();
    const path = join(dir, "s.jsonl");
    // c's line comes before its parent b's; d and c are on different branches under a.
    writeFileSync(path, jsonl(header, entry("a", null), entry("c", "b"), entry("d", "a"), entry("b", "a")));
    const sm = SessionManager.open(path);
    assert.equal(sm.getLeafId(), "b");
    assert.deepEqual(contextTexts(sm), ["a", "b"]);
    sm.branch("c");
    assert.deepEqual(contextTexts(sm), ["a", "b", "c"]);
    sm.branch("d");
    assert.deepEqual(contextTexts(sm), ["a", "d"]);
    assert.deepEqual(sm.getIssues(), []);
    sm.close();
  });

  test("a parent cycle in a file is reported, and opening, the tree and the context terminate", () => {
    const path = join(freshDir(), "s.jsonl");
    writeFileSync(path, jsonl(header, entry("r", null), entry("x", "z"), entry("y", "x"), entry("z", "y")));
    const sm = SessionManager.open(path);
    assert.deepEqual(
      sm.getIssues().map((i) => i.code),
      ["parent_cycle"],
    );
    assert.equal(sm.getLeafId(), "z");
    assert.deepEqual(contextTexts(sm), ["x", "y", "z"]);
    assert.equal(sm.getTree().length, 2);
    sm.close();
  });

  test("duplicate ids in a file: identical ones collapse, conflicting ones keep the first, both reported", () => {
    const path = join(freshDir(), "s.jsonl");
    const a = entry("a", null);
    writeFileSync(path, jsonl(header, a, a, { ...a, message: user("other") }));
    const sm = SessionManager.open(path);
    assert.deepEqual(
      sm.getEntries().map((e) => e.id),
      ["a"],
    );
    assert.deepEqual(contextTexts(sm), ["a"]);
    assert.deepEqual(
      sm.getIssues().map((i) => [i.code, i.line]),
      [
        ["duplicate_identical", 3],
        ["duplicate_conflict", 4],
      ],
    );
    sm.close();
  });
});

describe("typed errors, and files left exactly as they were", () => {
  const cases: { name: string; content: string | Buffer; code: string; todo?: string }[] = [
    { name: "an empty file", content: "", code: "not_a_session" },
    {
      name: "a text file that is not JSON",
      content: "hello\nworld\n",
      code: "not_a_session",
    },
    {
      name: "a JSON file that is not a session",
      content: '{"name":"package","version":"1.0.0"}\n',
      code: "not_a_session",
    },
    {
      name: "a damaged header before valid entries",
      content: `{"type":"sess\n${jsonl(entry("a", null))}`,
      code: "invalid_header",
    },
    {
      name: "a header with a wrong field",
      content: jsonl({ ...header, id: 42 }, entry("a", null)),
      code: "invalid_header",
    },
  ];
  for (const c of cases) {
    test(`SessionFile.open on ${c.name}: ${c.code}, file untouched`, { todo: c.todo }, () => {
      const dir = freshDir();
      const path = join(dir, "s.jsonl");
      writeFileSync(path, c.content);
      const before = readFileSync(path);
      assert.throws(
        () => SessionFile.open(path),
        (e) => isSessionTreeError(e, c.code as never),
      );
      if (c.content.length > 0) {
        assert.throws(
          () => SessionManager.open(path),
          (e) => isSessionTreeError(e, c.code as never),
        );
      }
      assert.ok(readFileSync(path).equals(before), "byte-identical afterwards");
      assert.deepEqual(readdirSync(dir), ["s.jsonl"], "nothing written beside it");
    });
  }

  test("SessionFile.open on a missing path: session_not_found", () => {
    const path = join(freshDir(), "absent.jsonl");
    assert.throws(
      () => SessionFile.open(path),
      (e) => isSessionTreeError(e, "session_not_found"),
    );
  });

  test("SessionManager.open on an empty file starts a session there, and the first append writes one header", () => {
    const path = join(freshDir(), "empty.jsonl");
    writeFileSync(path, "");
    const sm = SessionManager.open(path);
    const id = sm.appendMessage(user("first"));
    assert.equal(headerCount(path), 1);
    assert.deepEqual(
      SessionManager.open(path)
        .getEntries()
        .map((e) => e.id),
      [id],
    );
  });

  test("after close() the session stays readable and a later append reopens the file", () => {
    const sm = SessionManager.create("/p", freshDir());
    const id = sm.appendMessage(user("kept"));
    sm.close();
    assert.equal(sm.getLeafId(), id);
    assert.deepEqual(contextTexts(sm), ["kept"]);
    sm.appendMessage(assistant("after close"));
    assert.equal(headerCount(sm.getSessionFile() as string), 1);
  });
});
