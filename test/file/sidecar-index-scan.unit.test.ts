import assert from "node:assert/strict";
import {
  appendFileSync,
  closeSync,
  fstatSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { IndexBuilder, NotIndexable, scanInto } from "../../src/file/sidecar-index-builder.js";
import type { SessionIndex } from "../../src/file/sidecar-index-model.js";
import { indexWithLooks } from "../../src/viewer/indexed-scan.js";
import { looksPathFor } from "../../src/viewer/looks-cache.js";
import {
  ReferenceBuilder,
  ReferenceLookingBuilder,
  referenceLook,
  referenceScan,
} from "./support/index-reference.js";

// The sidecar indexer walks its read buffer (no line object per line, ids found from their bytes,
// typed columns): every index it makes must be the one the line-by-line indexer made, field for
// field (ids, parents, kinds, offsets, lengths, lines, leaf, dangling parents, issues, stamp), at
// any read size, and every look the viewer takes on the way the one it took.

const root = mkdtempSync(join(tmpdir(), "st-index-scan-"));
process.env.SESSIONTREE_CACHE_DIR = join(root, "cache");
after(() => rmSync(root, { recursive: true, force: true }));
let files = 0;

/** Read sizes: the usual one, and ones far smaller than a line, so lines cross every read. */
const READ_SIZES = [undefined, 64, 257, 4096];

const HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}';

/** An entry line as pi writes one: type, id, parentId, timestamp first. */
function line(type: string, id: string, parentId: string | null, rest: Record<string, unknown> = {}): string {
  return JSON.stringify({ type, id, parentId, timestamp: "2026-01-01T00:00:00.000Z", ...rest });
}

function message(id: string, parentId: string | null, message: Record<string, unknown>): string {
  return line("message", id, parentId, { message: { ...message, timestamp: 1 } });
}

const user = (id: string, parentId: string | null, text = "hi") =>
  message(id, parentId, { role: "user", content: [{ type: "text", text }] });
const assistant = (id: string, parentId: string | null, stopReason = "stop") =>
  message(id, parentId, {
    role: "assistant",
    content: [{ type: "text", text: "ok" }],
    api: "x",
    provider: "p",
    model: "m",
    usage: { input: 1, output: 1 },
    stopReason,
  });
const toolResult = (id: string, parentId: string | null, isError: boolean) =>
  message(id, parentId, {
    role: "toolResult",
    toolCallId: "c",
    toolName: "read",
    content: [{ type: "text", text: "out" }],
    isError,
  });

/** Every shape of line the indexer tells apart, each after the line before it. */
function variedLines(): string[] {
  return [
    line("model_change", "m0000001", null, { provider: "p", modelId: "m" }),
    user("u0000001", "m0000001"),
    assistant("a0000001", "u0000001"),
    assistant("a0000002", "a0000001", "error"),
    assistant("a0000003", "a0000002", "aborted"),
    toolResult("t0000001", "a0000003", true),
    toolResult("t0000002", "t0000001", false),
    line("thinking_level_change", "k0000001", "t0000002", { thinkingLevel: "high" }),
    line("custom", "c0000001", "k0000001", { customType: "todo", data: { items: [] } }),
    line("custom", "c0000002", "c0000001", { customType: "sessiontree.leaf" }),
    line("custom", "c0000003", "c0000001", { customType: "claude-code.sidechain", data: {} }),
    line("custom_message", "cm000001", "c0000001", { customType: "note", content: "x", display: true }),
    line("compaction", "cp000001", "cm000001", {
      summary: "s",
      firstKeptEntryId: "u0000001",
      tokensBefore: 9,
    }),
    line("branch_summary", "bs000001", "cp000001", { fromId: "u0000001", summary: "b" }),
    line("label", "l0000001", "bs000001", { targetId: "u0000001", label: "here" }),
    line("session_info", "si000001", "l0000001", { name: "a name" }),
    line("future_thing", "f0000001", "si000001", { whatever: 1 }),
    message("o0000001", "f0000001", { role: "bashExecution", command: "ls", output: "" }),
    // The role before the timestamp: a message whose role the start does not say.
    JSON.stringify({
      type: "message",
      id: "o0000002",
      parentId: "o0000001",
      message: { role: "user", content: "x" },
    }),
    "",
    "  \t",
    `${user("crlf0001", "o0000002")}\r`,
    user("u0000001", "crlf0001", "a duplicate id: the first wins"),
    user("child001", "later001"),
    user("later001", "crlf0001"),
    user("orphan01", "nowhere1"),
    user("self0001", "self0001"),
    user("a\\u0041b", "later001").replace('"a\\\\u0041b"', '"a\\u0041b"'),
    user("é0000001", "later001"),
    user("漢字", "é0000001"),
    user("wide0001", "漢字"),
    user("empty001", ""),
    `${user("glue0001", "wide0001")}${user("glue0002", "glue0001")}`,
    `{"type":"message","id":"torn0001","parentId":"glue0002","timestamp":"x","message":{"role":"user",${user("torn0002", "glue0002")}`,
    "{not json",
    user("brace001", "torn0002", "a }{ in a string"),
    user("nested01", "brace001", 'a {"type":"message" inside'),
    user("big00001", "nested01", "x".repeat(1_500_000)),
    assistant("last0001", "big00001"),
  ];
}

function write(content: string): string {
  const path = join(root, `s${++files}.jsonl`);
  writeFileSync(path, content);
  return path;
}

function comparable(index: SessionIndex) {
  return { ...index, ids: index.ids.toArray() };
}

/** The reference's index of `path` and, at every read size, the scan's: the same, or both not indexable. */
function assertSameIndex(path: string): SessionIndex | null {
  const fd = openSync(path, "r");
  try {
    const stats = fstatSync(fd);
    let expected: SessionIndex | null = null;
    try {
      expected = referenceScan(new ReferenceBuilder(), fd, stats);
    } catch (error) {
      if (!(error instanceof NotIndexable)) throw error;
    }
    for (const size of READ_SIZES) {
      const scan = () => scanInto(new IndexBuilder(), fd, stats, undefined, size);
      if (expected === null) assert.throws(scan, NotIndexable, `read size ${size}`);
      else assert.deepEqual(comparable(scan()), comparable(expected), `read size ${size}`);
    }
    return expected;
  } finally {
    closeSync(fd);
  }
}

/** The looks the viewer's scan takes (and, from the saved index, its line-by-line pass) are the reference's. */
function assertSameLooks(path: string): void {
  const fd = openSync(path, "r");
  try {
    const reference = new ReferenceLookingBuilder();
    const index = referenceScan(reference, fd, fstatSync(fd));
    const expected = Uint8Array.from({ length: index.ids.count }, (_, n) => reference.looks[n] ?? 0);
    const built = indexWithLooks(path, fd);
    assert.equal(built?.state, "rebuilt");
    assert.deepEqual(built.looks, expected, "looks taken by the scan");
    rmSync(looksPathFor(path));
    const reread = indexWithLooks(path, fd);
    assert.equal(reread?.state, "warm");
    // Read from each entry's line: an entry of a line of several records gets that line's look too.
    const bytes = readFileSync(path);
    const fromLines = Uint8Array.from({ length: index.ids.count }, (_, n) => {
      const offset = index.offsets[n] as number;
      return referenceLook(
        bytes.subarray(offset, offset + (index.lengths[n] as number)),
        index.kinds[n] as number,
      );
    });
    assert.deepEqual(reread.looks, fromLines, "looks read from the lines by the saved index");
  } finally {
    closeSync(fd);
  }
}

describe("the sidecar indexer's scan gives the line-by-line indexer's index", () => {
  test("every kind of line, at every read size", () => {
    const lines = variedLines();
    const index = assertSameIndex(write(`${HEADER}\n${lines.join("\n")}\n`));
    assert.ok(index, "the file is indexed");
    // The cases are there: glued and damaged lines reported, a parent never seen kept dangling.
    assert.ok(index.issues.some((issue) => issue.code === "glued_records"));
    assert.ok(index.issues.some((issue) => issue.code === "invalid_json"));
    // torn0002, written after a record cut short on its line, is indexed as the whole read keeps it.
    assert.deepEqual(Object.values(index.dangling).sort(), ["", "nowhere1"]);
    assert.ok(index.ids.toArray().includes("torn0002"));
    assert.ok(!index.ids.toArray().includes("torn0001"), "the cut record is not an entry");
    assert.ok(index.ids.toArray().includes("漢字"));
  });

  test("the same looks as the viewer took line by line", () => {
    assertSameLooks(write(`${HEADER}\n${variedLines().join("\n")}\n`));
  });

  test("a torn last line, a header alone, a header with an entry glued to it", () => {
    const lines = variedLines().slice(0, 6);
    assertSameIndex(write(`${HEADER}\n${lines.join("\n")}\n${lines[1]?.slice(0, 40)}`));
    assertSameIndex(write(`${HEADER}\n`));
    assertSameIndex(write(HEADER));
    assertSameIndex(write(`\n\n${HEADER}\n${lines[0]}\n`));
    assertSameIndex(write(`${HEADER}${lines[0]}\n${lines[1]}\n`));
  });

  test("files it does not index: empty, older format, no readable header", () => {
    assert.equal(assertSameIndex(write("")), null);
    assert.equal(assertSameIndex(write(`${HEADER.replace('"version":3', '"version":2')}\n`)), null);
    assert.equal(assertSameIndex(write(`{not a header\n${variedLines()[0]}\n`)), null);
  });

  test("lines shuffled at random (seeded), each file at every read size", () => {
    const all = variedLines().filter((text) => text.length < 10_000);
    let seed = 7;
    const random = () => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed / 2 ** 32;
    };
    for (let round = 0; round < 25; round++) {
      const picked = Array.from({ length: 5 + Math.floor(random() * 60) }, () => {
        const text = all[Math.floor(random() * all.length)] as string;
        return random() < 0.1 ? `${text}\r` : text;
      });
      const tail = random() < 0.3 ? (picked.pop() ?? "") : "";
      assertSameIndex(write(`${HEADER}\n${picked.join("\n")}\n${tail}`));
    }
  });

  test("an index continued over appended lines is the one continued line by line", () => {
    const lines = variedLines();
    const path = write(`${HEADER}\n${lines.slice(0, 20).join("\n")}\n`);
    const first = assertSameIndex(path) as SessionIndex;
    appendFileSync(path, `${lines.slice(20).join("\n")}\n`);
    const fd = openSync(path, "r");
    try {
      const stats = fstatSync(fd);
      const start = { line: first.indexedLines, offset: first.indexedBytes };
      const expected = referenceScan(ReferenceBuilder.continuing(first), fd, stats, start);
      for (const size of READ_SIZES) {
        const got = scanInto(IndexBuilder.continuing(first), fd, stats, start, size);
        assert.deepEqual(comparable(got), comparable(expected), `read size ${size}`);
      }
      // And the continued index is the one a scan of the whole file makes.
      assert.deepEqual(comparable(expected), comparable(referenceScan(new ReferenceBuilder(), fd, stats)));
    } finally {
      closeSync(fd);
    }
  });
});
