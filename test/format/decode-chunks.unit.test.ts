import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type DecodedSession, SessionDecoder } from "../../src/format/jsonl/decode.js";
import { encodeLine } from "../../src/format/jsonl/encode.js";
import { entryMaker } from "../support/messages.js";

/**
 * The decoder parses the complete lines of a chunk straight from the chunk, and falls back to the
 * line-by-line path (the splitter) for a line whose JSON.parse fails, a chunk that is not valid
 * UTF-8 and the line a chunk ends inside. Fed one byte at a time, every line goes through the
 * splitter; fed whole or in random pieces, most go through the chunk path. The results must be
 * identical: entries, issues (codes, messages, lines, offsets, parts), header, torn tail, counts.
 */

const made = entryMaker();
const header = made.header({ id: "s1", cwd: "/p" });

function decodeIn(bytes: Buffer, cuts: (length: number) => number[], sink = false): unknown {
  const entries: unknown[] = [];
  const decoder = sink
    ? new SessionDecoder(undefined, (entry, line, offset) => entries.push({ entry, line, offset }))
    : new SessionDecoder();
  let start = 0;
  for (const cut of [...cuts(bytes.length), bytes.length]) {
    decoder.push(bytes.subarray(start, cut));
    start = cut;
  }
  const decoded: DecodedSession = decoder.finish({ tailIsTorn: true });
  return { ...decoded, entries: sink ? entries : decoded.entries };
}

const byteByByte = (length: number) => Array.from({ length }, (_, i) => i);
const whole = () => [];
function randomCuts(seed: number): (length: number) => number[] {
  return (length) => {
    let state = seed;
    const cuts: number[] = [];
    for (let at = 0; ; ) {
      state = (state * 1103515245 + 12345) & 0x7fffffff;
      at += 1 + (state % 97);
      if (at >= length) return cuts;
      cuts.push(at);
    }
  };
}

const awkward = [
  encodeLine(header),
  encodeLine(made.user("a", null, "héllo ✓ — non-ASCII text")),
  "\n",
  "   \t \r\n",
  encodeLine(made.user("b", "a", "plain")).replace("\n", "\r\n"),
  "{not json\n",
  `${encodeLine(made.user("c", "b", "x")).trim()}${encodeLine(made.user("d", "c", "y"))}`,
  `\ufeff${encodeLine(made.user("e", "d", "after a byte order mark"))}`,
  '{"type":"message","id":"f"}\n',
  encodeLine(made.user("b", "a", "a conflicting duplicate")),
  encodeLine({ type: "custom", id: "g", parentId: "e", timestamp: header.timestamp, customType: "k" }),
].join("");
const invalidUtf8 = Buffer.concat([
  Buffer.from(awkward),
  Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]),
  Buffer.from(encodeLine(made.user("h", "g", "after bad bytes"))),
  Buffer.from('{"type":"message","id":"torn"'),
]);

describe("decoding a chunk at once gives what decoding line by line gives", () => {
  for (const [name, bytes] of [
    ["awkward lines", Buffer.from(awkward)],
    ["invalid UTF-8 and a torn tail", invalidUtf8],
    ["no header, CRLF only", Buffer.from(encodeLine(made.user("z", null, "q")).replace("\n", "\r\n"))],
    ["a v1 file (migrated on the fly)", Buffer.from(v1File())],
  ] as const) {
    test(name, () => {
      const reference = decodeIn(bytes, byteByByte);
      assert.deepEqual(decodeIn(bytes, whole), reference);
      for (let seed = 1; seed <= 20; seed++) assert.deepEqual(decodeIn(bytes, randomCuts(seed)), reference);
      assert.deepEqual(decodeIn(bytes, whole, true), decodeIn(bytes, byteByByte, true));
    });
  }

  test("issues keep their line numbers and byte offsets on the chunk path", () => {
    const decoded = decodeIn(invalidUtf8, whole) as DecodedSession;
    const codes = decoded.issues.map((issue) => [issue.code, issue.line]);
    assert.deepEqual(codes, [
      ["invalid_json", 6],
      ["glued_records", 7],
      ["invalid_entry", 9],
      ["invalid_utf8", 12],
      ["torn_tail", 14],
    ]);
    const offsetOf = (line: number) => {
      let offset = 0;
      for (let n = 1; n < line; n++) offset = invalidUtf8.indexOf(10, offset) + 1;
      return offset;
    };
    for (const issue of decoded.issues) assert.equal(issue.offset, offsetOf(issue.line as number));
  });
});

function v1File(): string {
  return [
    JSON.stringify({ type: "session", id: "old", timestamp: header.timestamp, cwd: "/p" }),
    JSON.stringify({
      type: "message",
      timestamp: header.timestamp,
      message: { role: "user", content: "one" },
    }),
    JSON.stringify({
      type: "message",
      timestamp: header.timestamp,
      message: { role: "user", content: "two" },
    }),
    "",
  ].join("\n");
}
