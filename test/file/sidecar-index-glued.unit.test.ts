import assert from "node:assert/strict";
import { closeSync, fstatSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { readSessionFile } from "../../src/file/read-file.js";
import { IndexBuilder, scanInto } from "../../src/file/sidecar-index-builder.js";
import { parentIdOf, type SessionIndex } from "../../src/file/sidecar-index-model.js";
import { openPathOnly } from "../../src/session/context-resume.js";

// The sidecar indexer reads most lines from their start alone. A line that holds an entry written
// after a record cut short (a crash mid-write, then the next append on the same line: pi #8575)
// starts like the cut record, so the indexer must see the second record and index the line as the
// whole read splits it; and a resume must never take a shorter path from the index than the whole
// read takes.

const root = mkdtempSync(join(tmpdir(), "st-index-glued-"));
process.env.SESSIONTREE_CACHE_DIR = join(root, "cache");
after(() => rmSync(root, { recursive: true, force: true }));
let files = 0;

const T = "2026-01-01T00:00:00.000Z";
const HEADER = JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: T, cwd: "/w" });
const entry = (id: string, parentId: string | null, message: Record<string, unknown>) =>
  JSON.stringify({ type: "message", id, parentId, timestamp: T, message: { ...message, timestamp: 1 } });
const user = (id: string, parentId: string | null, text = "hi") =>
  entry(id, parentId, { role: "user", content: [{ type: "text", text }] });
const assistant = (id: string, parentId: string | null, content: unknown[]) =>
  entry(id, parentId, {
    role: "assistant",
    content,
    api: "x",
    provider: "p",
    model: "m",
    usage: { input: 1, output: 1 },
    stopReason: "stop",
  });

/** Read sizes: the usual one, and one far smaller than a line, so lines cross every read. */
const READ_SIZES = [undefined, 64];

function write(content: string): string {
  const path = join(root, `s${++files}.jsonl`);
  writeFileSync(path, content);
  return path;
}

function indexOf(path: string, readSize?: number): SessionIndex {
  const fd = openSync(path, "r");
  try {
    return scanInto(new IndexBuilder(), fd, fstatSync(fd), undefined, readSize);
  } finally {
    closeSync(fd);
  }
}

/** The entries (id → parent, in file order) and the issues the whole read finds, and the index's. */
function assertIndexedAsWholeRead(path: string, where: string): SessionIndex {
  const decoded = readSessionFile(path);
  const expected = decoded.entries.map(({ entry }) => [entry.id, entry.parentId]);
  const issues = (list: typeof decoded.issues) => list.map((i) => [i.code, i.line, i.part ?? null]);
  let index: SessionIndex | undefined;
  for (const size of READ_SIZES) {
    index = indexOf(path, size);
    const got = index.ids.toArray().map((id, n) => [id, parentIdOf(index as SessionIndex, n)]);
    assert.deepEqual(got, expected, `${where}, read size ${size}: entries`);
    assert.deepEqual(issues(index.issues), issues(decoded.issues), `${where}, read size ${size}: issues`);
  }
  return index as SessionIndex;
}

describe("an entry written on the line of a record cut short is indexed as the whole read keeps it", () => {
  // The cut record holds a run of "I"s (as base64 does), where the indexer's search for the
  // second `"parentId":` takes its other way.
  const cut = assistant("c0ffee00", "a0000001", [
    { type: "text", text: "The header needs a flex row" },
    { type: "image", data: `iVBOR${"I".repeat(120)}Jggg==`, mimeType: "image/png" },
    { type: "toolCall", id: "call_1", name: "edit", arguments: { path: "a.css" } },
  ]);
  const before = [
    HEADER,
    user("u0000001", null),
    assistant("a0000001", "u0000001", [{ type: "text", text: "ok" }]),
  ];
  const glued = assistant("b0000001", "a0000001", [{ type: "text", text: "Header done." }]);
  const after = [user("u0000002", "b0000001", "Thanks"), assistant("a0000002", "u0000002", [])];

  test("cut at every byte", () => {
    for (let at = 1; at < cut.length; at++) {
      const path = write(`${[...before, cut.slice(0, at) + glued, ...after].join("\n")}\n`);
      const index = assertIndexedAsWholeRead(path, `cut at byte ${at}`);
      // Whatever the cut, nothing hangs from a parent the index lost.
      assert.deepEqual(index.dangling, {}, `cut at byte ${at}`);
    }
  });

  test("a `parentId` key inside a record's content is one record: the line is parsed, nothing reported", () => {
    const nested = assistant("a0000003", "a0000002", [
      { type: "toolCall", id: "call_2", name: "append", arguments: { parentId: "x", type: "message" } },
    ]);
    const path = write(`${[...before, ...after, nested].join("\n")}\n`);
    const index = assertIndexedAsWholeRead(path, "nested key");
    assert.deepEqual(index.issues, []);
    assert.equal(index.ids.at(index.leaf), "a0000003");
  });
});

describe("a byte order mark alone on the line before the header", () => {
  test("is a blank line to the indexer, as to the whole read", () => {
    const lines = [HEADER, user("u0000001", null), assistant("a0000001", "u0000001", [])];
    const path = write(`\uFEFF\r\n${lines.join("\r\n")}\r\n`);
    const index = assertIndexedAsWholeRead(path, "BOM line");
    assert.equal(index.header.offset, 5, "the header is line 2");
    assert.deepEqual(index.issues, []);
  });
});

describe("a resume through the index never takes a shorter path than the whole read", () => {
  test("a path that starts at a missing parent is read whole", () => {
    const lines = [HEADER, user("u0000002", "gone0001"), assistant("a0000002", "u0000002", [])];
    const resumed = openPathOnly(write(`${lines.join("\n")}\n`));
    assert.equal(resumed.index, "none", "the whole read answered");
    assert.deepEqual(
      resumed.path.map((ref) => ref.id),
      ["u0000002", "a0000002"],
    );
    // The same file with the parent in place resumes through the index.
    const whole = [HEADER, user("gone0001", null), ...lines.slice(1)];
    assert.notEqual(openPathOnly(write(`${whole.join("\n")}\n`)).index, "none");
  });
});
