import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { decodeSession, SessionDecoder } from "../../src/format/jsonl/decode.js";
import { readLineRecords } from "../../src/format/jsonl/line-records.js";
import { splitGlued } from "../../src/format/jsonl/split-glued.js";
import { type GluedShape, gluedCorpus } from "../durability/glued-corpus.js";
import { entriesOfLine } from "../durability/glued-oracle.js";
import { entryMaker } from "../support/messages.js";

const corpus = gluedCorpus();
const made = entryMaker();
const header = made.header();
const line = (text: string) => ({ bytes: Buffer.from(text), line: 7, offset: 1234 });
const issuesOf = (text: string) => {
  const issues: unknown[] = [];
  const records = readLineRecords(line(text), (issue) => issues.push(issue));
  return { records, issues };
};

describe("splitting records glued on one line", () => {
  test("a line that parses is one record, whatever `}{` its strings hold", () => {
    const entry = made.user("x1", null, 'code: function(){}{} and }{"type":"message"}');
    const { records, issues } = issuesOf(JSON.stringify(entry));
    assert.deepEqual(records, [{ value: entry, part: null }]);
    assert.deepEqual(issues, []);
  });

  test("the scan follows strings and escapes: `}{` and quotes inside values never split", () => {
    const a = made.user("a", null, 'he said "}{" then \\ and }{');
    const b = made.assistant("b", "a", '{"type":"message"}{');
    const text = JSON.stringify(a) + JSON.stringify(b);
    const parts = splitGlued(text);
    assert.deepEqual(
      parts.map((p) => (p.kind === "value" ? p.value : p.kind)),
      [a, b],
    );
    assert.equal(parts[1]?.start, JSON.stringify(a).length);
  });

  test("two glued records: both kept, one warning with the line, its offset and each record's byte", () => {
    const a = made.user("a", null, "héllo ✓");
    const b = made.assistant("b", "a");
    const { records, issues } = issuesOf(JSON.stringify(a) + JSON.stringify(b));
    const second = Buffer.byteLength(JSON.stringify(a));
    assert.deepEqual(
      records.map((r) => r.value),
      [a, b],
    );
    assert.deepEqual(records[1]?.part, { start: second, end: second + JSON.stringify(b).length });
    assert.deepEqual(issues, [
      {
        code: "glued_records",
        severity: "warning",
        message: `Line 7: 2 records on one line (at bytes 0 and ${second} of the line)`,
      },
    ]);
  });

  test("a record glued to garbage keeps the record and reports the garbage's bytes, in either order", () => {
    const a = made.user("a", null);
    const record = JSON.stringify(a);
    for (const [text, garbageAt] of [
      [`${record}### not json`, { start: record.length, end: record.length + "### not json".length }],
      [`{"type":"message","id":"torn","par${record}`, { start: 0, end: 34 }],
    ] as const) {
      const { records, issues } = issuesOf(text);
      assert.deepEqual(
        records.map((r) => r.value),
        [a],
        text,
      );
      const codes = issues.map((i) => [(i as { code: string }).code, (i as { part?: unknown }).part]);
      assert.deepEqual(codes, [
        ["glued_records", undefined],
        ["invalid_json", garbageAt],
      ]);
      assert.match(
        (issues[0] as { message: string }).message,
        /Line 7: 1 record and 1 damaged part on one line/,
      );
    }
  });

  test("a line with no record in it is reported exactly as before: one invalid_json, the parser's words", () => {
    for (const text of ["{not json", "not json at all", "{".repeat(1000), '{"type":"message","id":"x"']) {
      const { records, issues } = issuesOf(text);
      assert.deepEqual(records, []);
      assert.equal(issues.length, 1);
      let expected = "";
      try {
        JSON.parse(text);
      } catch (error) {
        expected = `Line 7 is not JSON: ${(error as Error).message}`;
      }
      assert.deepEqual(issues[0], { code: "invalid_json", severity: "error", message: expected });
    }
  });

  test("the reader's split agrees with an independent one on every line of the corpus", () => {
    for (const shape of corpus) {
      for (const text of shape.bytes.toString("utf8").split("\n")) {
        const ours = readLineRecords(line(text), () => {}).map((r) => r.value);
        const oracle = entriesOfLine(Buffer.from(text));
        assert.deepEqual(
          ours.filter((v) => (v as { type?: string }).type !== "session"),
          oracle,
          `${shape.name}: ${text.slice(0, 50)}`,
        );
      }
    }
  });
});

/** What the decoder must find in a shape read as a whole text (an import), or as a file. */
function checkShape(shape: GluedShape, decoded: ReturnType<typeof decodeSession>, asFile: boolean): void {
  const { line, offset, records } = shape.glued;
  assert.deepEqual(decoded.header, shape.header, shape.name);
  // Whole records are kept wherever they are, on a file's last line without its newline too.
  assert.deepEqual(
    decoded.entries.map((e) => e.entry),
    shape.entries,
    `${shape.name}: entries`,
  );
  const unterminated = decoded.issues.filter((i) => i.code === "unterminated_line");
  assert.deepEqual(
    unterminated.map((i) => [i.severity, i.line, i.offset]),
    asFile && shape.unterminated ? [["info", line, offset]] : [],
    `${shape.name}: a last line without its newline`,
  );
  assert.equal(decoded.tornTail, null, shape.name);
  for (const e of decoded.entries.filter((e) => e.line === line)) assert.equal(e.offset, offset, shape.name);
  const glued = decoded.issues.find((i) => i.code === "glued_records");
  assert.deepEqual(
    [glued?.severity, glued?.line, glued?.offset],
    ["warning", line, offset],
    `${shape.name}: the split is reported`,
  );
  assert.match(glued?.message ?? "", new RegExp(`^Line ${line}: ${records} records? `), shape.name);
  const errors = decoded.issues.filter((i) => i.severity === "error");
  assert.equal(errors.length, shape.damaged ? 1 : 0, `${shape.name}: ${JSON.stringify(errors)}`);
  for (const error of errors)
    assert.deepEqual([error.code, error.line, error.offset], ["invalid_json", line, offset]);
}

describe("the decoder over the corpus of glued shapes", () => {
  for (const shape of corpus) {
    test(shape.name, () => {
      checkShape(shape, decodeSession(shape.bytes), false);
      checkShape(shape, decodeSession(shape.bytes, { tailIsTorn: true }), true);
      // Streaming byte by byte splits lines across chunks: the same result.
      const decoder = new SessionDecoder();
      for (let i = 0; i < shape.bytes.length; i++) decoder.push(shape.bytes.subarray(i, i + 1));
      assert.deepEqual(
        decoder.finish({ tailIsTorn: true }),
        decodeSession(shape.bytes, { tailIsTorn: true }),
      );
    });
  }

  test("a part that parses but is not an entry is an invalid entry, with its bytes; its neighbours stay", () => {
    const a = made.user("a", null);
    const notAnEntry = '{"type":"message","id":5}';
    const text = `${JSON.stringify(header)}\n${JSON.stringify(a)}${notAnEntry}\n`;
    const decoded = decodeSession(text);
    assert.deepEqual(
      decoded.entries.map((e) => e.entry),
      [a],
    );
    const start = JSON.stringify(a).length;
    assert.deepEqual(
      decoded.issues.map((i) => [i.code, i.line, i.part]),
      [
        ["glued_records", 2, undefined],
        ["invalid_entry", 2, { start, end: start + notAnEntry.length }],
      ],
    );
  });

  test("an entry glued after a v1 header is migrated like the line it should have been", () => {
    const v1 = { type: "session", id: "old-session", timestamp: header.timestamp, cwd: "/p" };
    const message = (text: string) => ({
      type: "message",
      timestamp: header.timestamp,
      message: { role: "user", content: text, timestamp: 1 },
    });
    const glued = `${JSON.stringify(v1)}${JSON.stringify(message("one"))}\n${JSON.stringify(message("two"))}\n`;
    const apart = `${JSON.stringify(v1)}\n${JSON.stringify(message("one"))}\n${JSON.stringify(message("two"))}\n`;
    assert.deepEqual(
      decodeSession(glued).entries.map((e) => e.entry),
      decodeSession(apart).entries.map((e) => e.entry),
    );
    assert.equal(decodeSession(glued).migratedFrom, 1);
  });
});
