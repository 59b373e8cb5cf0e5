import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import type { SessionEntry } from "../../src/core/entry.js";
import { isSessionTreeError } from "../../src/core/errors.js";
import { SessionFile } from "../../src/file/session-file.js";
import { encodeSession } from "../../src/format/jsonl/encode.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { entryMaker } from "../support/messages.js";
import { Random } from "../support/random.js";
import { type LineSpan, payloadEntry, quarantinesAt, splitLines, tempDir } from "./support.js";

const { dir, cleanup } = tempDir("truncate");
after(cleanup);

/** A valid session with a branch, a label, multi-byte text (cuts land inside characters) and a large line. */
function sampleSession(): { bytes: Buffer; entries: SessionEntry[] } {
  const make = entryMaker();
  const entries: SessionEntry[] = [];
  let parent: string | null = null;
  for (let i = 0; i < 12; i++) {
    const user = make.user(`u${i}`, parent, `question ${i}: héllo ✓ 😀 ${"x".repeat(i * 7)}`);
    const reply = make.assistant(`a${i}`, user.id, `answer ${i} — ça va 日本語`);
    entries.push(user, reply);
    parent = reply.id;
  }
  entries.push(make.user("b1", "a5", "a second branch from a5"));
  entries.push({
    type: "label",
    id: "l1",
    parentId: "b1",
    timestamp: "2026-01-02T00:00:00.000Z",
    targetId: "a5",
    label: "fork",
  } as SessionEntry);
  entries.push(payloadEntry("big", "l1", 20_000, "large", make.entry));
  entries.push(make.user("t1", "big", "almost done ✓"));
  entries.push(make.user("t2", "t1", "done 😀"));
  entries.push(make.user("t3", "t2", "one more, so the last three lines are small ✓"));
  return { bytes: Buffer.from(encodeSession(make.header(), entries)), entries };
}

const sample = sampleSession();
const lines = splitLines(sample.bytes);
const entryLines = lines.slice(1);

/**
 * What a reader must recover from the first `cut` bytes: the entries whose line fits, newline
 * included, or without its newline only (a whole record on a last line with no newline is read,
 * as pi reads it); `tailStart` is where the bytes that are not part of the session begin.
 */
function expectedAt(cut: number): { entries: SessionEntry[]; tailStart: number; endsMidLine: boolean } {
  const whole = entryLines.filter((line: LineSpan) => line.end - 1 <= cut);
  const last = whole[whole.length - 1];
  const endsMidLine = last !== undefined && last.end - 1 === cut;
  const tailStart = last ? Math.min(last.end, cut) : (lines[0] as LineSpan).end;
  return { entries: sample.entries.slice(0, whole.length), tailStart, endsMidLine };
}

let counter = 0;
/** Writes the cut file in its own folder, so quarantine files of different cuts never mix. */
function writeCut(cut: number): string {
  const folder = join(dir, `cut-${counter++}`);
  mkdirSync(folder);
  const path = join(folder, "session.jsonl");
  writeFileSync(path, sample.bytes.subarray(0, cut));
  return path;
}

type Appender = (path: string) => { id: string; parentId: string | null };

const appendWithFile: Appender = (path) => {
  const file = SessionFile.open(path);
  try {
    const [entry] = file.write((tree) => [tree.append({ type: "session_info", name: "after the cut" })]);
    return entry as SessionEntry;
  } finally {
    file.close();
  }
};

const appendWithManager: Appender = (path) => {
  const manager = SessionManager.open(path, undefined, "/tmp/project");
  try {
    const id = manager.appendMessage({ role: "user", content: "after the cut", timestamp: 1 });
    return manager.getEntry(id) as SessionEntry;
  } finally {
    manager.close();
  }
};

function checkCut(cut: number, append: Appender): void {
  const path = writeCut(cut);
  const headerEnd = (lines[0] as LineSpan).end;
  if (cut < headerEnd - 1) {
    checkTornHeader(path, cut, append);
    return;
  }
  const { entries, tailStart, endsMidLine } = expectedAt(cut);
  const tail = sample.bytes.subarray(tailStart, cut);

  const opened = SessionFile.open(path);
  assert.deepEqual(opened.tree.getStoredEntries(), entries, `cut ${cut}: recovered entries`);
  const issues = opened.getIssues();
  opened.close();
  if (tail.length > 0) {
    assert.deepEqual(
      issues.map((i) => [i.code, i.offset]),
      [["torn_tail", tailStart]],
      `cut ${cut}: issues`,
    );
  } else {
    assert.deepEqual(issues, [], `cut ${cut}: issues`);
  }
  assert.equal(statSync(path).size, cut, `cut ${cut}: opening wrote to the file`);

  const appended = append(path);
  const last = entries[entries.length - 1];
  assert.equal(appended.parentId, last ? last.id : null, `cut ${cut}: new entry's parent`);
  const after = readFileSync(path);
  assert.deepEqual(
    after.subarray(0, tailStart),
    sample.bytes.subarray(0, tailStart),
    `cut ${cut}: prefix kept`,
  );
  // A last line left without its newline gets it before the new line.
  const added = after.subarray(endsMidLine ? tailStart + 1 : tailStart);
  if (endsMidLine) assert.equal(after[tailStart], 10, `cut ${cut}: the last line's newline written first`);
  const newLines = splitLines(added);
  assert.equal(newLines.length, 1, `cut ${cut}: exactly one new line`);
  assert.ok(newLines[0]?.terminated, `cut ${cut}: new line terminated`);
  const kept = quarantinesAt(path, tailStart);
  if (tail.length > 0) {
    assert.equal(kept.length, 1, `cut ${cut}: one quarantine file`);
    assert.deepEqual(kept[0], tail, `cut ${cut}: torn bytes kept byte-for-byte`);
  } else {
    assert.equal(kept.length, 0, `cut ${cut}: nothing was torn`);
  }

  const reopened = SessionFile.open(path);
  assert.deepEqual(reopened.getIssues(), [], `cut ${cut}: reopens cleanly`);
  assert.equal(reopened.tree.getLeafId(), appended.id, `cut ${cut}: leaf`);
  assert.equal(reopened.tree.getStoredEntries().length, entries.length + 1, `cut ${cut}: entry count`);
  reopened.close();
  rmSync(join(path, ".."), { recursive: true });
}

/**
 * The header itself is cut (or the file is empty). `SessionFile.open` refuses it with a typed
 * error and leaves it exactly as it was; the session manager starts a new session in it, as pi
 * does, and its first write moves the cut bytes aside instead of overwriting them.
 */
function checkTornHeader(path: string, cut: number, append: Appender): void {
  const before = sample.bytes.subarray(0, cut);
  if (append === appendWithFile) {
    assert.throws(
      () => append(path),
      (error) => isSessionTreeError(error),
      `cut ${cut}`,
    );
    assert.deepEqual(readFileSync(path), before, `cut ${cut}: file changed`);
  } else {
    const appended = append(path);
    assert.equal(appended.parentId, null, `cut ${cut}: a new session's first entry`);
    const reopened = SessionFile.open(path);
    assert.deepEqual(reopened.getIssues(), [], `cut ${cut}: reopens cleanly`);
    assert.deepEqual(
      reopened.tree.getStoredEntries().map((e) => e.id),
      [appended.id],
      `cut ${cut}: the new session`,
    );
    reopened.close();
    const kept = quarantinesAt(path, 0);
    assert.deepEqual(kept, cut === 0 ? [] : [before], `cut ${cut}: the cut header kept byte-for-byte`);
  }
  rmSync(join(path, ".."), { recursive: true });
}

test("a cut at every byte offset of the last three lines: entries before it recovered, the cut bytes kept", () => {
  const start = (lines[lines.length - 3] as LineSpan).offset;
  let checked = 0;
  for (let cut = start; cut <= sample.bytes.length; cut++) {
    checkCut(cut, appendWithFile);
    checked++;
  }
  assert.ok(checked > 300, `only ${checked} offsets`);
});

test("a cut at random offsets anywhere (header included), appending through SessionFile and SessionManager", () => {
  const rng = new Random(7);
  for (let i = 0; i < 240; i++) {
    const cut = rng.between(0, sample.bytes.length);
    checkCut(cut, i % 2 === 0 ? appendWithFile : appendWithManager);
  }
});

test("a cut inside the large line, and a cut that leaves a complete JSON entry without its newline", () => {
  const big = entryLines.find((line) => line.bytes.includes(Buffer.from('"big"'))) as LineSpan;
  for (const cut of [big.offset + 1, big.offset + 10_000, big.end - 2, big.end - 1])
    checkCut(cut, appendWithFile);
  // end - 1 is exactly "the whole JSON, no newline": read as part of the session, as pi reads it.
  assert.equal(sample.bytes[big.end - 1], 10);
  assert.deepEqual(expectedAt(big.end - 1).entries.at(-1)?.id, "big");
});
