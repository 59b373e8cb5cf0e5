import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { fsckFile } from "../../src/file/fsck.js";
import { repairFile } from "../../src/file/repair.js";
import { SessionFile } from "../../src/file/session-file.js";
import { filePlacer, tempDir } from "./support.js";

const { dir, cleanup } = tempDir("damaged-shapes");
after(cleanup);

const place = filePlacer(dir);

let second = 0;
const ts = () => new Date(Date.UTC(2026, 0, 1, 0, 0, second++)).toISOString();
const header = () =>
  JSON.stringify({
    type: "session",
    version: 3,
    id: "0195f0a0-0000-7000-8000-00000000c0de",
    timestamp: ts(),
    cwd: "/tmp/x",
  });
const user = (id: string, parentId: string | null, text: string) =>
  JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: ts(),
    message: { role: "user", content: text, timestamp: 1 },
  });
const B = (s: string) => Buffer.from(s, "utf8");

const H = header();
const A = user("aaaaaaaa", null, "A");
const Bx = user("bbbbbbbb", "aaaaaaaa", "B");
const C = user("cccccccc", "bbbbbbbb", "C é€ end");
const D = user("dddddddd", "cccccccc", "D");
/** C cut in the middle of its "€" (a torn write ends at any byte, not at a character). */
const cBytes = B(C);
const cCutInChar = cBytes.subarray(0, cBytes.indexOf(B("€")) + 1);
const cCutAscii = B(C.slice(0, 40));

/** The entry lines of a file, each as its bytes (the header left out). */
const entryLines = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.length > 0)
    .slice(1);

const piContext = (path: string) =>
  PiSessionManager.open(path, join(path, ".."))
    .buildSessionContext()
    .messages.map((m) => (m as { content: string }).content);

describe("a torn record cut inside a UTF-8 character leaves the whole records on its line", () => {
  test("glued torn+entry line, torn part cut inside a multi-byte character: repair keeps the intact entry (only the damaged part is left out)", () => {
    // pi appends without the lock and never cuts a torn tail: its next line lands right after it.
    const path = place(Buffer.concat([B(`${H}\n${A}\n${Bx}\n`), cCutInChar, B(`${D}\n`)]));
    const report = repairFile(path);
    assert.ok(entryLines(path).includes(D), `D was dropped: ${JSON.stringify(report.actions)}`);
    assert.ok(report.actions.some((a) => a.kind === "dropped_part" && a.line === 4));
    assert.ok(report.actions.some((a) => a.kind === "split_line" && a.line === 4));
  });

  test("glued torn+entry line, torn part cut inside a multi-byte character: the readers keep the intact entry as they do for an ASCII cut", () => {
    const path = place(Buffer.concat([B(`${H}\n${A}\n${Bx}\n`), cCutInChar, B(`${D}\n`)]));
    const file = SessionFile.open(path);
    try {
      assert.equal(file.tree.getLeafId(), "dddddddd");
    } finally {
      file.close();
    }
    assert.ok(fsckFile(path).issues.some((i) => i.code === "glued_records" && i.line === 4));
  });

  test("torn tail holding a whole entry then a record cut inside a multi-byte character: repair keeps the whole entry", () => {
    const path = place(Buffer.concat([B(`${H}\n${A}\n${Bx}`), cCutInChar]));
    assert.equal(fsckFile(path).tornTail?.entries, 1, "fsck counts the whole entry the torn tail holds");
    const report = repairFile(path);
    assert.deepEqual(entryLines(path), [A, Bx], JSON.stringify(report.actions));
    assert.ok(report.actions.some((a) => a.kind === "kept_torn_tail_entries"));
  });
});

describe("other damaged shapes, read and repaired as documented", () => {
  test("glued torn+entry line with an ASCII cut: split, damaged part dropped, D kept, pi reads the repair", () => {
    const path = place(Buffer.concat([B(`${H}\n${A}\n${Bx}\n`), cCutAscii, B(`${C}\n${D}\n`)]));
    const report = repairFile(path);
    assert.deepEqual(
      report.actions.map((a) => `${a.kind}@${a.line}`),
      ["split_line@4", "dropped_part@4"],
    );
    assert.deepEqual(entryLines(path), [A, Bx, C, D]);
    assert.deepEqual(piContext(path), ["A", "B", "C é€ end", "D"]);
    assert.equal(repairFile(path).changed, false, "repair is idempotent");
  });

  test("torn tail with a whole entry then an ASCII cut: repair keeps the whole entry", () => {
    const path = place(Buffer.concat([B(`${H}\n${A}\n${Bx}`), cCutAscii]));
    repairFile(path);
    assert.deepEqual(entryLines(path), [A, Bx]);
  });

  test("a line of NUL bytes (crash on ext4/XFS) is reported with its line, dropped by repair with a backup", () => {
    const original = B(`${H}\n${A}\n\0\0\0\0\0\0\0\0\n${Bx}\n`);
    const path = place(original);
    const fsck = fsckFile(path);
    assert.deepEqual(
      fsck.issues.map((i) => `${i.code}@${i.line}`),
      ["invalid_json@3"],
    );
    const report = repairFile(path);
    assert.deepEqual(readFileSync(report.backupPath as string), original);
    assert.deepEqual(entryLines(path), [A, Bx]);
    assert.equal(repairFile(path).changed, false);
  });

  test("NULs glued in front of an entry: the entry is kept", () => {
    const path = place(B(`${H}\n${A}\n\0\0\0\0${Bx}\n`));
    repairFile(path);
    assert.deepEqual(entryLines(path), [A, Bx]);
    assert.deepEqual(piContext(path), ["A", "B"]);
  });

  test("CRLF line ends and a byte order mark read as the plain file does", () => {
    for (const bytes of [B(`${H}\r\n${A}\r\n${Bx}\r\n`), B(`\uFEFF${H}\n${A}\n${Bx}\n`)]) {
      const path = place(bytes);
      const file = SessionFile.open(path);
      try {
        assert.equal(file.tree.getLeafId(), "bbbbbbbb");
        assert.equal(file.tree.size, 2);
      } finally {
        file.close();
      }
      assert.equal(fsckFile(path).ok, true);
      repairFile(path);
      assert.deepEqual(entryLines(path), [A, Bx]);
      assert.deepEqual(piContext(path), ["A", "B"]);
    }
  });

  test("a whole line that is not valid UTF-8 stays refused (documented): reported with its line", () => {
    const bad = Buffer.from(B(C).map((x) => x));
    bad[bad.indexOf(B("é"))] = 0xff;
    const path = place(Buffer.concat([B(`${H}\n${A}\n`), bad, B("\n")]));
    assert.deepEqual(
      fsckFile(path).issues.map((i) => `${i.code}@${i.line}`),
      ["invalid_utf8@3"],
    );
  });

  test("a conflicting duplicate: the first copy wins, fsck reports its line, repair drops the later copy", () => {
    const conflicting = user("bbbbbbbb", "aaaaaaaa", "B other");
    const path = place(B(`${H}\n${A}\n${Bx}\n${conflicting}\n`));
    assert.deepEqual(
      fsckFile(path).issues.map((i) => `${i.code}@${i.line}`),
      ["duplicate_conflict@4"],
    );
    repairFile(path);
    assert.deepEqual(entryLines(path), [A, Bx]);
  });
});
