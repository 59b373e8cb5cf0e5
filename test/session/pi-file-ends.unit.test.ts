import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { isSessionTreeError } from "../../src/core/errors.js";
import { fsckFile, isFinding } from "../../src/file/fsck.js";
import { repairFile } from "../../src/file/repair.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { tempFolders } from "../support/temp-folders.js";
import { assertSameSession, pairByPosition, SAME_IDS } from "./support/pair.js";
import { assistant, user } from "./support/scenario.js";
import { twoCopies } from "./support/two-copies.js";

// How a session file may end when another tool, or a crash, wrote it: its last line without a
// newline, or nothing but the start of a header. pi reads the first and starts anew on the second.

const { fresh: freshDir } = tempFolders("st-file-ends");

const T = "2026-01-01T00:00:00.000Z";
const HEADER = { type: "session", version: 3, id: "s1", timestamp: T, cwd: "/p" };
const msg = (id: string, parentId: string | null, message: object) => ({
  type: "message",
  id,
  parentId,
  timestamp: T,
  message,
});

/** The records joined by newlines, as a tool that writes no final newline leaves them. */
function withoutFinalNewline(records: unknown[]): string {
  return records.map((r) => JSON.stringify(r)).join("\n");
}

const records = (last: object) => [
  HEADER,
  msg("u1", null, user("first question")),
  msg("a1", "u1", assistant("first answer")),
  msg("u2", "a1", last),
];

describe("a last line without its newline", () => {
  test("is read as pi reads it: the same entries, leaf and context", () => {
    const files = twoCopies(freshDir(), withoutFinalNewline(records(user("the question pi answers next"))));
    const ours = SessionManager.open(files.ours);
    const pi = PiSessionManager.open(files.pi);
    assertSameSession(ours, pi, SAME_IDS, "no final newline", { deep: true });
    assert.equal(ours.getLeafId(), "u2");
    assert.deepEqual(ours.getIssues(), []);
    ours.close();
  });

  test("opening writes nothing; the next append puts the newline first, and pi reads every line after", () => {
    const text = withoutFinalNewline(records(user("last")));
    const { ours: path } = twoCopies(freshDir(), text);
    const before = statSync(path);
    const manager = SessionManager.open(path);
    assert.equal(statSync(path).mtimeMs, before.mtimeMs, "opening wrote to the file");
    const id = manager.appendMessage(user("after the last line"));
    manager.appendMessage(assistant("and its answer"));
    manager.close();
    const after = readFileSync(path, "utf8");
    assert.ok(after.startsWith(`${text}\n{`), "the old bytes, a newline, then the new lines");
    assert.ok(after.endsWith("\n"));
    assert.equal(manager.getEntry(id)?.parentId, "u2");
    const pi = PiSessionManager.open(path);
    assert.deepEqual(
      pi.getEntries().map((e) => e.id),
      ["u1", "a1", "u2", id, pi.getLeafId()],
    );
    assert.equal(SessionManager.open(path).getIssues().length, 0);
  });

  test("a file large enough to resume through the index is read whole instead, with the same context as pi", () => {
    const big = user(`a long paste: ${"x".repeat(1_200_000)}`);
    const files = twoCopies(freshDir(), withoutFinalNewline(records(big)));
    const ours = SessionManager.open(files.ours);
    const pi = PiSessionManager.open(files.pi);
    assert.ok(statSync(files.ours).size > 1_100_000);
    assertSameSession(ours, pi, SAME_IDS, "large, no final newline");
    assert.equal(ours.buildSessionContext().messages.length, 3);
    ours.close();
    // Opened a second time (the index written by the first open is present): the same again.
    const again = SessionManager.open(files.ours);
    assertSameSession(again, pi, SAME_IDS, "large, index present");
    again.close();
  });

  test("in a v1 file (migrated as it is read), too: the last record stays in the session when the file is rewritten as v3", () => {
    const v1 = [
      { type: "session", id: "s1", timestamp: T, cwd: "/p" },
      { type: "message", timestamp: T, message: user("u1") },
      { type: "message", timestamp: T, message: assistant("a1") },
      { type: "message", timestamp: T, message: user("the last, with no newline") },
    ];
    const files = twoCopies(freshDir(), withoutFinalNewline(v1));
    const ours = SessionManager.open(files.ours);
    const pi = PiSessionManager.open(files.pi);
    assertSameSession(ours, pi, pairByPosition(ours, pi), "v1, no final newline", { deep: true });
    assert.equal(ours.getEntries().length, 3);
    ours.appendMessage(assistant("after the migration"));
    ours.close();
    const rewritten = PiSessionManager.open(files.ours);
    assert.deepEqual(
      rewritten.buildSessionContext().messages.map((m) => (m as { role: string }).role),
      ["user", "assistant", "user", "assistant"],
    );
  });

  test("fsck tells it without calling it a finding; repair writes the newline and says so", () => {
    const text = withoutFinalNewline(records(user("last")));
    const { ours: path } = twoCopies(freshDir(), text);
    const report = fsckFile(path);
    assert.equal(report.ok, true);
    assert.equal(report.entries, 3);
    assert.deepEqual(
      report.issues.map((i) => [i.code, i.severity, i.line, isFinding(i)]),
      [["unterminated_line", "info", 4, false]],
    );
    const repaired = repairFile(path);
    assert.deepEqual(
      repaired.actions.map((a) => [a.kind, a.line]),
      [["ended_last_line", 4]],
    );
    assert.equal(readFileSync(path, "utf8"), `${text}\n`);
    assert.equal(repairFile(path).changed, false);
  });

  test("the header alone, whole, without its newline: the session opens, and the first append keeps it", () => {
    const text = JSON.stringify(HEADER);
    const files = twoCopies(freshDir(), text);
    const ours = SessionManager.open(files.ours);
    assert.equal(ours.getSessionId(), PiSessionManager.open(files.pi).getSessionId());
    const id = ours.appendMessage(user("hello"));
    ours.close();
    assert.equal(readFileSync(files.ours, "utf8").split("\n")[0], text);
    const pi = PiSessionManager.open(files.ours);
    assert.equal(pi.getSessionId(), "s1");
    assert.deepEqual(
      pi.getEntries().map((e) => e.id),
      [id],
    );
  });
});

describe("a file holding only the start of a header (a session's first write cut short)", () => {
  const header = `${JSON.stringify(HEADER)}\n`;
  const cuts = [1, 8, 17, 30, header.length - 3];

  test("opens as a new session, as in pi, and opening writes nothing", () => {
    for (const cut of cuts) {
      const files = twoCopies(freshDir(), header.slice(0, cut));
      const ours = SessionManager.open(files.ours, undefined, "/p");
      const pi = PiSessionManager.open(files.pi, undefined, "/p");
      assert.deepEqual(ours.getEntries(), [], `cut ${cut}`);
      assert.equal(pi.getEntries().length, 0, `cut ${cut}`);
      assert.deepEqual(ours.buildSessionContext().messages, []);
      assert.deepEqual(readFileSync(files.ours, "utf8"), header.slice(0, cut), `cut ${cut}: opening wrote`);
      assert.deepEqual(
        ours.getIssues().map((i) => [i.code, i.line, i.offset]),
        [["torn_tail", 1, 0]],
        `cut ${cut}`,
      );
      ours.close();
    }
  });

  test("the first append moves the cut bytes aside, byte for byte, and writes the new session", () => {
    for (const cut of cuts) {
      const dir = freshDir();
      const path = join(dir, "session.jsonl");
      const cutBytes = header.slice(0, cut);
      writeFileSync(path, cutBytes);
      const manager = SessionManager.open(path, undefined, "/p");
      const id = manager.appendMessage(user("the first message, again"));
      manager.appendMessage(assistant("its answer"));
      manager.close();
      const kept = readdirSync(dir).filter((name) => name.startsWith("session.jsonl.torn-0-"));
      assert.equal(kept.length, 1, `cut ${cut}: one quarantine file`);
      assert.equal(readFileSync(join(dir, kept[0] as string), "utf8"), cutBytes, `cut ${cut}`);
      const pi = PiSessionManager.open(path);
      assert.equal(pi.getSessionId(), manager.getSessionId(), `cut ${cut}`);
      assert.equal(pi.getEntries()[0]?.id, id, `cut ${cut}`);
      assert.deepEqual(SessionManager.open(path).getIssues(), [], `cut ${cut}: clean`);
    }
  });

  test("a whole header with a record glued after it is no header cut short: the session is read", () => {
    const dir = freshDir();
    const path = join(dir, "session.jsonl");
    const glued = `${JSON.stringify(HEADER)}${JSON.stringify(msg("a", null, user("hello")))}`;
    writeFileSync(path, glued);
    const manager = SessionManager.open(path, undefined, "/p");
    assert.equal(manager.getSessionId(), "s1");
    assert.deepEqual(
      manager.getEntries().map((e) => e.id),
      ["a"],
    );
    manager.appendMessage(user("next"));
    manager.close();
    assert.ok(readFileSync(path, "utf8").startsWith(`${glued}\n`));
    assert.deepEqual(
      readdirSync(dir).filter((name) => name.includes(".torn-")),
      [],
    );
    // A whole header followed by text that is no record: refused, and left as it was.
    const other = join(freshDir(), "session.jsonl");
    writeFileSync(other, `${JSON.stringify(HEADER)}xyz`);
    assert.throws(
      () => SessionManager.open(other),
      (error) => isSessionTreeError(error),
    );
    assert.equal(readFileSync(other, "utf8"), `${JSON.stringify(HEADER)}xyz`);
  });

  test("a file that changed since it was opened is not overwritten", () => {
    const dir = freshDir();
    const path = join(dir, "session.jsonl");
    writeFileSync(path, header.slice(0, 20));
    const manager = SessionManager.open(path, undefined, "/p");
    // Another writer changed it meanwhile: the same size with other bytes, or another size.
    for (const other of [`${header.slice(0, 19)}X`, header]) {
      assert.notEqual(other, header.slice(0, 20));
      writeFileSync(path, other);
      assert.throws(
        () => manager.appendMessage(user("mine")),
        (error) => isSessionTreeError(error, "io_error"),
      );
      assert.equal(readFileSync(path, "utf8"), other);
    }
    manager.close();
  });

  test("text that is not a header is still refused, and left as it was", () => {
    for (const text of ["garbage", '{"type":"message","id":"m', '{"cwd":"/p","type":"session"']) {
      const dir = freshDir();
      const path = join(dir, "session.jsonl");
      writeFileSync(path, text);
      assert.throws(
        () => SessionManager.open(path),
        (error) => isSessionTreeError(error),
        text,
      );
      assert.equal(readFileSync(path, "utf8"), text);
    }
  });
});
