import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { decodeSession, SessionDecoder } from "../../src/format/jsonl/decode.js";
import { encodeLine, encodeSession } from "../../src/format/jsonl/encode.js";
import { entryMaker } from "../support/messages.js";

const made = entryMaker();
const header = made.header({ id: "s1", cwd: "/p" });
const T = header.timestamp;
/** A user entry whose text is not ASCII, so byte offsets and character counts differ. */
const entry = (id: string, parentId: string | null, text = "héllo ✓") => made.user(id, parentId, text);
const lines = (...values: unknown[]) =>
  values.map((v) => (typeof v === "string" ? `${v}\n` : encodeLine(v))).join("");

/** Byte offset of line `n` (1-based) in `text`, computed independently of the decoder. */
function offsetOfLine(text: string, n: number): number {
  return (
    Buffer.byteLength(
      text
        .split("\n")
        .slice(0, n - 1)
        .join("\n"),
    ) + (n > 1 ? 1 : 0)
  );
}

describe("decodeSession", () => {
  test("a damaged line in the middle is reported with its line and byte offset; the rest is kept", () => {
    const text = lines(header, entry("a", null), "{not json", entry("b", "a"), { type: "message", id: "c" });
    const decoded = decodeSession(text);
    assert.deepEqual(
      decoded.entries.map((e) => e.entry.id),
      ["a", "b"],
    );
    assert.deepEqual(
      decoded.issues.map((i) => [i.code, i.line, i.offset]),
      [
        ["invalid_json", 3, offsetOfLine(text, 3)],
        ["invalid_entry", 5, offsetOfLine(text, 5)],
      ],
    );
    assert.deepEqual(
      decoded.entries.map((e) => [e.line, e.offset]),
      [
        [2, offsetOfLine(text, 2)],
        [4, offsetOfLine(text, 4)],
      ],
    );
  });

  test("invalid UTF-8 is reported, not replaced", () => {
    const bytes = Buffer.concat([
      Buffer.from(lines(header)),
      Buffer.from([0xff, 0xfe, 0x0a]),
      Buffer.from(lines(entry("a", null))),
    ]);
    const decoded = decodeSession(bytes);
    assert.deepEqual(
      decoded.issues.map((i) => [i.code, i.line]),
      [["invalid_utf8", 2]],
    );
    assert.equal(decoded.entries.length, 1);
  });

  test("ASCII and non-ASCII lines decode alike; a byte order mark is dropped; a bad byte anywhere is reported", () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const ascii = entry("a", null, "plain ascii");
    const accented = entry("b", "a", "héllo ✓ — ünïcode");
    const last = entry("c", "b");
    // A valid multi-byte prefix does not make a later invalid byte pass.
    const badAfterGood = Buffer.concat([
      Buffer.from('{"text":"✓'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}\n'),
    ]);
    const decoded = decodeSession(
      Buffer.concat([
        bom,
        Buffer.from(lines(header, ascii, accented)),
        badAfterGood,
        bom,
        Buffer.from(lines(last)),
      ]),
    );
    assert.equal(decoded.header?.id, "s1");
    assert.deepEqual(
      decoded.entries.map((e) => e.entry),
      [ascii, accented, last],
    );
    assert.deepEqual(
      decoded.issues.map((i) => [i.code, i.line]),
      [["invalid_utf8", 4]],
    );
  });

  test("a sink takes each entry with its line and offset as it is read; the result then keeps none", () => {
    const text = lines(header, entry("a", null), "{not json", entry("b", "a"));
    const taken: [string, number, number][] = [];
    const decoder = new SessionDecoder(undefined, (e, line, offset) => taken.push([e.id, line, offset]));
    decoder.push(Buffer.from(text));
    const decoded = decoder.finish();
    assert.deepEqual(taken, [
      ["a", 2, offsetOfLine(text, 2)],
      ["b", 4, offsetOfLine(text, 4)],
    ]);
    assert.equal(decoded.entries.length, 0);
    assert.deepEqual(
      decoded.issues.map((i) => i.code),
      ["invalid_json"],
    );
  });

  test("a cut line without a newline is a torn tail for files, the last line for whole texts", () => {
    const cut = JSON.stringify(entry("b", "a")).slice(0, -1);
    const text = `${lines(header, entry("a", null))}${cut}`;
    const asFile = decodeSession(text, { tailIsTorn: true });
    assert.deepEqual(
      asFile.entries.map((e) => e.entry.id),
      ["a"],
    );
    assert.deepEqual(
      asFile.issues.map((i) => [i.code, i.line, i.offset]),
      [["torn_tail", 3, offsetOfLine(text, 3)]],
    );
    assert.equal(asFile.completeBytes, offsetOfLine(text, 3));
    assert.equal(asFile.endsMidLine, false);
    assert.equal(asFile.tornTail?.bytes.toString(), cut);
    // A whole text (an import) has no writer that may still finish it: its last line is reported as any line.
    assert.deepEqual(
      decodeSession(text).issues.map((i) => [i.code, i.line]),
      [["invalid_json", 3]],
    );
  });

  test("whole records on a last line without a newline are read, as pi reads them", () => {
    const text = `${lines(header, entry("a", null))}${JSON.stringify(entry("b", "a"))}`;
    const asFile = decodeSession(text, { tailIsTorn: true });
    assert.deepEqual(
      asFile.entries.map((e) => [e.entry.id, e.line, e.offset]),
      [
        ["a", 2, offsetOfLine(text, 2)],
        ["b", 3, offsetOfLine(text, 3)],
      ],
    );
    assert.deepEqual(
      asFile.issues.map((i) => [i.code, i.severity, i.line, i.offset]),
      [["unterminated_line", "info", 3, offsetOfLine(text, 3)]],
    );
    assert.equal(asFile.tornTail, null);
    assert.equal(asFile.completeBytes, Buffer.byteLength(text));
    assert.equal(asFile.completeLines, 3);
    assert.equal(asFile.endsMidLine, true);
    // The header alone, whole, without its newline: the session is there, empty.
    const headerOnly = decodeSession(JSON.stringify(header), { tailIsTorn: true });
    assert.deepEqual([headerOnly.header?.id, headerOnly.endsMidLine], [header.id, true]);
  });

  test("a last line without a newline stays a torn tail unless every record on it is a whole, valid one", () => {
    const valid = JSON.stringify(entry("b", "a"));
    for (const tail of [
      `${valid}{"type":"message","id":"c"`, // a whole record, then a cut one
      '{"type":"message","id":"x"}', // whole JSON, not a valid entry
      `${valid}{"not":"an entry"}`,
    ]) {
      const text = `${lines(header, entry("a", null))}${tail}`;
      const asFile = decodeSession(text, { tailIsTorn: true });
      assert.deepEqual(
        asFile.entries.map((e) => e.entry.id),
        ["a"],
        tail,
      );
      assert.equal(asFile.tornTail?.bytes.toString(), tail, tail);
      assert.equal(asFile.endsMidLine, false, tail);
    }
  });

  test("blank lines and CRLF line ends carry nothing and break nothing", () => {
    const text = lines(header, "", entry("a", null), "   ").replace(/\n/g, "\r\n");
    const decoded = decodeSession(text);
    assert.deepEqual(decoded.issues, []);
    assert.deepEqual(
      decoded.entries.map((e) => e.entry.id),
      ["a"],
    );
  });

  test("header problems: missing header keeps the entry, a damaged header is reported", () => {
    const noHeader = decodeSession(lines(entry("a", null)));
    assert.equal(noHeader.header, null);
    assert.deepEqual(
      noHeader.issues.map((i) => i.code),
      ["missing_header"],
    );
    assert.equal(noHeader.entries.length, 1);
    const damaged = decodeSession(lines({ type: "session", id: 42 }, entry("a", null)));
    assert.equal(damaged.header, null);
    assert.deepEqual(
      damaged.issues.map((i) => [i.code, i.line]),
      [["invalid_header", 1]],
    );
  });

  test("every entry needs the common fields; a known type missing its own is kept as malformed", () => {
    const decoded = decodeSession(
      lines(
        header,
        { type: "compaction", id: "c", parentId: null, timestamp: T, summary: "s", firstKeptEntryId: 3 },
        { type: "label", id: "l", parentId: null, timestamp: T, targetId: 7 },
        { type: "someday_type", id: "u", parentId: null, timestamp: T, anything: [1] },
        { type: "message", id: "n", parentId: 5, timestamp: T, message: { role: "user" } },
        { type: "session", id: "again", timestamp: T, cwd: "/p" },
      ),
    );
    // pi keeps every line that parses: refusing "c" and "l" would cut whatever hangs under them.
    assert.deepEqual(
      decoded.entries.map((e) => e.entry.id),
      ["c", "l", "u"],
    );
    assert.deepEqual(
      decoded.issues.map((i) => [i.code, i.severity, i.line]),
      [
        ["malformed_entry", "warning", 2],
        ["malformed_entry", "warning", 3],
        ["invalid_entry", "error", 5],
        ["invalid_entry", "error", 6],
      ],
    );
    assert.match(
      decoded.issues[0]?.message ?? "",
      /Line 2: entry c kept, but nothing is taken from it: compaction: firstKeptEntryId must be a string/,
    );
  });

  test("decoding then encoding gives back every line byte for byte, unknown types and fields included", () => {
    const text = lines(
      { ...header, extraHeader: { keep: true } },
      { ...entry("a", null), unknownField: [1, { x: "y" }] },
      { parentId: "a", id: "z", type: "future", timestamp: T, payload: '\u2028 é \\ "' },
      {
        ...entry("b", "z"),
        message: { role: "assistant", content: [], provider: "p", model: "m", extra: null },
      },
    );
    const decoded = decodeSession(text);
    assert.deepEqual(decoded.issues, []);
    assert.equal(
      encodeSession(
        decoded.header as never,
        decoded.entries.map((e) => e.entry),
      ),
      text,
    );
  });

  test("streaming one byte at a time decodes exactly like the whole buffer", () => {
    const text = lines(header, entry("a", null), "{bad", entry("b", "a"));
    const bytes = Buffer.from(`${text}{"torn":`);
    const decoder = new SessionDecoder();
    for (let i = 0; i < bytes.length; i++) decoder.push(bytes.subarray(i, i + 1));
    assert.deepEqual(decoder.finish({ tailIsTorn: true }), decodeSession(bytes, { tailIsTorn: true }));
  });

  test("encodeLine refuses what JSON cannot hold, with a stable code", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.throws(
      () => encodeLine(cyclic),
      (e: unknown) => (e as { code?: string }).code === "invalid_entry",
    );
    assert.throws(
      () => encodeLine({ n: 1n }),
      (e: unknown) => (e as { code?: string }).code === "invalid_entry",
    );
    assert.equal(encodeLine({ s: "a\nb" }), '{"s":"a\\nb"}\n', "a newline in a value never splits the line");
  });
});
