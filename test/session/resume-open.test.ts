import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { projectContext } from "../../src/core/context.js";
import type { CustomEntry } from "../../src/core/entry.js";
import { SessionFile } from "../../src/file/session-file.js";
import { indexPathFor } from "../../src/file/sidecar-index.js";
import { IndexedBacking } from "../../src/session/backing/indexed-backing.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { messageMaker } from "../support/messages.js";

const dir = mkdtempSync(join(tmpdir(), "sessiontree-resume-open-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const { user, assistant } = messageMaker();

/**
 * A session of over 1 MiB (smaller ones are read whole) with a compaction, an abandoned branch
 * holding most of the bytes, and extension state; returns its path and leaf.
 */
function writeSession(): { path: string; leaf: string; abandoned: string } {
  const sm = SessionManager.create("/tmp/project", dir);
  const first = sm.appendMessage(user("first"));
  sm.appendMessage(assistant("first answer"));
  const abandoned = sm.appendMessage(user("abandoned"));
  sm.appendMessage(assistant("a long tool output ".repeat(60_000)));
  sm.branch(first);
  const kept = sm.appendMessage(user("kept"));
  sm.appendMessage(assistant("kept answer"));
  sm.appendThinkingLevelChange("high");
  sm.appendCustomEntry("ext", { n: 1 });
  sm.appendCompaction("summary", kept, 1234);
  sm.appendMessage(user("after"));
  const leaf = sm.appendMessage(assistant("after answer"));
  sm.close();
  return { path: sm.getSessionFile() as string, leaf, abandoned };
}

/** Whether the manager has read the whole file yet (it no longer holds only the resumed path). */
function readWhole(manager: SessionManager): boolean {
  return !((manager as unknown as { backing: unknown }).backing instanceof IndexedBacking);
}

test("open gives the leaf and context from the index, without reading the whole file", () => {
  const { path, leaf } = writeSession();
  const full = SessionFile.open(path);
  const expected = projectContext(full.tree.getBranch());
  full.close();
  for (const state of ["first open (index written)", "index present"]) {
    const manager = SessionManager.open(path, dir);
    assert.ok(existsSync(indexPathFor(path)), state);
    assert.equal(manager.getLeafId(), leaf, state);
    assert.equal(manager.getLeafEntry()?.id, leaf, state);
    assert.deepStrictEqual(manager.buildSessionContext(), expected, state);
    assert.equal(manager.getHeader()?.id, full.header.id);
    assert.equal(readWhole(manager), false, `${state}: only the context's lines were read`);
    manager.close();
  }
});

test("a caller changing the context it got does not change the next one", () => {
  const { path } = writeSession();
  const manager = SessionManager.open(path, dir);
  const first = manager.buildSessionContext();
  const count = first.messages.length;
  first.messages.length = 0;
  first.messageEntryIds.push("x");
  first.extensionState.ext = "changed";
  const second = manager.buildSessionContext();
  assert.equal(second.messages.length, count);
  assert.equal(second.messageEntryIds.length, count);
  assert.deepEqual(second.extensionState, { ext: { n: 1 } });
});

test("any other call reads the whole file; the tree is the one a full open gives", () => {
  const { path, abandoned } = writeSession();
  const manager = SessionManager.open(path, dir);
  const eager = SessionFile.open(path);
  assert.deepEqual(manager.getEntries(), eager.tree.getEntries());
  assert.ok(manager.getEntry(abandoned), "the abandoned branch is there");
  assert.equal(readWhole(manager), true);
  assert.deepEqual(manager.getIssues(), []);
  eager.close();
  manager.close();
});

test("an append after a resume continues from the resumed leaf, also when another process wrote meanwhile", () => {
  const { path, leaf } = writeSession();
  const manager = SessionManager.open(path, dir);
  assert.equal(manager.getLeafId(), leaf);
  // Another writer appends after our open, before we read the whole file.
  const other = SessionFile.open(path);
  const [foreign] = other.write((tree) => [
    tree.append<CustomEntry>({ type: "custom", customType: "other" }),
  ]);
  other.close();
  const next = manager.appendMessage(user("next"));
  assert.equal(manager.getEntry(next)?.parentId, leaf, "our leaf did not move to the other writer's entry");
  assert.ok(manager.getEntry(foreign?.id as string), "the other writer's entry joined the tree");
  manager.close();
  const reopened = SessionManager.open(path, dir);
  assert.equal(reopened.getLeafId(), next);
  assert.deepEqual(reopened.getIssues(), []);
  reopened.close();
});

test("a damaged line on the path is reported: such a resume reads the whole file at once", () => {
  const { path } = writeSession();
  SessionManager.open(path, dir).close(); // an index that covers the clean file
  const lines = readFileSync(path, "utf8").split("\n");
  const last = lines.length - 2; // the leaf's line (the file ends with a newline)
  lines[last] = `${(lines[last] as string).slice(0, -2)}  `; // same length, no longer JSON
  writeFileSync(path, lines.join("\n"));
  const manager = SessionManager.open(path, dir);
  assert.ok(
    manager.getIssues().some((issue) => issue.line === last + 1),
    "the damaged line is reported with its number",
  );
  manager.close();
});

test("a large session of an older format is opened by reading it whole (and migrated on the first write)", () => {
  const path = join(dir, "v1.jsonl");
  const header = {
    type: "session",
    id: "0195f0a0-0000-7000-8000-0000000000a1",
    timestamp: "2025-01-01T00:00:00.000Z",
    cwd: "/tmp/project",
  };
  const message = {
    type: "message",
    timestamp: "2025-01-01T00:00:01.000Z",
    message: user("old ".repeat(300_000)),
  };
  writeFileSync(path, `${JSON.stringify(header)}\n${JSON.stringify(message)}\n`);
  const manager = SessionManager.open(path, dir);
  assert.equal(readWhole(manager), true);
  assert.equal(manager.buildSessionContext().messages.length, 1);
  manager.close();
});

test("a small session is read whole at open, and no index is written beside it", () => {
  const sm = SessionManager.create("/tmp/project", dir);
  sm.appendMessage(user("small"));
  sm.appendMessage(assistant("small answer"));
  sm.close();
  const path = sm.getSessionFile() as string;
  const manager = SessionManager.open(path, dir);
  assert.equal(readWhole(manager), true);
  assert.equal(manager.buildSessionContext().messages.length, 2);
  assert.equal(existsSync(indexPathFor(path)), false);
  manager.close();
});

test("appends that extend the path go out without reading the whole file; pi reads the result the same", () => {
  const { path, leaf } = writeSession();
  const manager = SessionManager.open(path, dir);
  const question = manager.appendMessage(user("one more question"));
  manager.appendThinkingLevelChange("low");
  manager.appendModelChange("openai", "gpt-5");
  manager.appendCustomEntry("ext", { n: 2 });
  manager.appendCustomMessageEntry("note", "a note", true);
  manager.appendSessionInfo("renamed");
  const answer = manager.appendMessage(assistant("one more answer"));
  assert.equal(readWhole(manager), false, "still only the context's lines and ours");
  assert.equal(manager.getLeafId(), answer);
  const ours = manager.buildSessionContext();
  assert.equal(ours.thinkingLevel, "low");
  assert.deepEqual(ours.extensionState, { ext: { n: 2 } });
  manager.close();

  const full = SessionFile.open(path);
  assert.deepStrictEqual(ours, projectContext(full.tree.getBranch()), "the context a whole read gives");
  assert.equal(full.tree.getEntry(question)?.parentId, leaf);
  assert.deepEqual(full.getIssues(), []);
  full.close();
  const pi = PiSessionManager.open(path, dir);
  assert.equal(pi.getLeafId(), answer);
  assert.deepEqual(pi.buildSessionContext().messages, ours.messages);
  assert.equal(pi.getSessionName(), "renamed");
});

test("an append that needs the whole tree (a compaction, a label) reads it first, and goes on from the same leaf", () => {
  const { path } = writeSession();
  const manager = SessionManager.open(path, dir);
  const kept = manager.appendMessage(user("kept from here"));
  assert.equal(readWhole(manager), false);
  const compaction = manager.appendCompaction("again", kept, 99);
  assert.equal(readWhole(manager), true);
  assert.equal(manager.getEntry(compaction)?.parentId, kept);
  const context = manager.buildSessionContext();
  assert.deepEqual(context.messageEntryIds, [compaction, kept]);
  manager.close();
});

test("after close(), an append reads the whole file: nothing is appended twice or lost", () => {
  const { path } = writeSession();
  const manager = SessionManager.open(path, dir);
  const first = manager.appendMessage(user("before close"));
  manager.close();
  const second = manager.appendMessage(user("after close"));
  assert.equal(manager.getEntry(second)?.parentId, first);
  manager.close();
  const reopened = SessionFile.open(path);
  assert.deepEqual(reopened.getIssues(), []);
  assert.equal(reopened.tree.getEntries().filter((e) => e.id === first).length, 1);
  reopened.close();
});

test("a whole read that fails (the file briefly gone) leaves the resumed session as it was", () => {
  const { path, leaf } = writeSession();
  const manager = SessionManager.open(path, dir);
  renameSync(path, `${path}.away`);
  assert.throws(() => manager.getEntries());
  renameSync(`${path}.away`, path);
  assert.equal(manager.getLeafId(), leaf);
  assert.ok(manager.getEntries().length > 5);
  assert.equal(manager.getLeafId(), leaf);
  manager.close();
});

test("a long path without a compaction is read whole at open, once: getBranch reads nothing more", () => {
  // Over 1 MiB, every byte on the leaf's path: the context would need nearly every line.
  const sm = SessionManager.create("/tmp/project", dir);
  for (let i = 0; i < 400; i++) {
    sm.appendMessage(user(`question ${i}`));
    sm.appendMessage(assistant(`answer ${i} `.repeat(300)));
  }
  const path = sm.getSessionFile() as string;
  const expected = sm.getBranch().map((entry) => entry.id);
  sm.close();
  for (const state of ["first open (index written)", "index present"]) {
    const manager = SessionManager.open(path, dir);
    assert.equal(readWhole(manager), true, `${state}: read whole at open`);
    // Moved away: a manager that still had to read the file for getBranch would fail now.
    renameSync(path, `${path}.away`);
    try {
      assert.deepEqual(
        manager.getBranch().map((entry) => entry.id),
        expected,
        state,
      );
      assert.equal(manager.buildSessionContext().messages.length, expected.length, state);
    } finally {
      renameSync(`${path}.away`, path);
      manager.close();
    }
  }
});

test("the share of the file the context needs decides: it counts from the leaf back to the last compaction", () => {
  // Two sessions of over 1 MiB, every byte on the leaf's path, with the index present. The context
  // needs what follows the last compaction: a short tail is read through the index, a tail holding
  // most of the file is read whole at open.
  const write = (before: number, after: number) => {
    const sm = SessionManager.create("/tmp/project", dir);
    let kept = "";
    for (let i = 0; i < before + after; i++) {
      if (i === before) sm.appendCompaction("summary", kept, 1000);
      kept = sm.appendMessage(user(`question ${i}`));
      sm.appendMessage(assistant(`answer ${i} `.repeat(300)));
    }
    const path = sm.getSessionFile() as string;
    sm.close();
    SessionManager.open(path, dir).close(); // the index, written by a first open
    return path;
  };
  const shortTail = SessionManager.open(write(400, 5), dir);
  const longTail = SessionManager.open(write(5, 400), dir);
  try {
    assert.equal(readWhole(shortTail), false, "a short tail after the compaction: through the index");
    assert.equal(shortTail.buildSessionContext().messages.length, 1 + 2 * 6);
    assert.equal(readWhole(longTail), true, "nearly the whole file after the compaction: read whole");
    assert.equal(longTail.buildSessionContext().messages.length, 1 + 2 * 401);
  } finally {
    shortTail.close();
    longTail.close();
  }
});

test('open: "whole" reads a large session whole at open, once, and writes no index', () => {
  const { path, leaf } = writeSession();
  const manager = SessionManager.open(path, dir, undefined, { open: "whole" });
  assert.equal(readWhole(manager), true, "the whole file was read at open");
  assert.equal(existsSync(indexPathFor(path)), false, "no index: it would only be a second read");
  assert.equal(manager.getLeafId(), leaf);
  const full = SessionFile.open(path);
  assert.deepStrictEqual(manager.getTree(), full.tree.getTree());
  assert.deepStrictEqual(manager.buildSessionContext(), projectContext(full.tree.getBranch()));
  full.close();
  manager.close();
  const resumed = SessionManager.open(path, dir);
  assert.equal(readWhole(resumed), false, "the default still resumes through the index");
  resumed.close();
});
