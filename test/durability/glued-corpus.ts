import type { SessionEntry, SessionHeader } from "../../src/core/entry.js";
import { entryMaker } from "../support/messages.js";

/**
 * Session files with records glued on one line (a lost newline, two unlocked writers), written
 * from entries, in the shapes found in real pi files and around them. Each says what every reader
 * must make of it: the entries kept (file order), and where the glued line is.
 */
export interface GluedShape {
  name: string;
  bytes: Buffer;
  header: SessionHeader;
  /** Every entry the file holds whole, in file order: what a reader keeps, and repair writes. */
  entries: SessionEntry[];
  /** The glued line: its number, the byte offset of its start, the records on it. */
  glued: { line: number; offset: number; records: number };
  /** Bytes on the glued line that are no record (torn or garbage): reported, left out. */
  damaged: boolean;
  /** The glued line is the last and has no newline: for a file, a torn tail (not yet part of the session). */
  unterminated: boolean;
}

/** A line's text: an entry (or header) as JSON, or raw text (garbage, half a record). */
type Piece = SessionEntry | SessionHeader | string;

const json = (piece: Piece) => (typeof piece === "string" ? piece : JSON.stringify(piece));

interface Layout {
  /** Lines of the file; a line of several pieces is glued. */
  lines: Piece[][];
  damaged?: boolean;
  unterminated?: boolean;
}

function shape(name: string, header: SessionHeader, layout: Layout): GluedShape {
  const texts = layout.lines.map((pieces) => pieces.map(json).join(""));
  const gluedAt = layout.lines.findIndex((pieces) => pieces.length > 1);
  const text = texts.join("\n") + (layout.unterminated ? "" : "\n");
  const before = texts.slice(0, gluedAt).join("\n");
  const entries = layout.lines.flat().filter((p): p is SessionEntry => typeof p !== "string" && p !== header);
  const records = (layout.lines[gluedAt] as Piece[]).filter((p) => typeof p !== "string").length;
  return {
    name,
    bytes: Buffer.from(text),
    header,
    entries,
    glued: { line: gluedAt + 1, offset: gluedAt === 0 ? 0 : Buffer.byteLength(before) + 1, records },
    damaged: layout.damaged ?? false,
    unterminated: layout.unterminated ?? false,
  };
}

/** The corpus: every shape once, each its own session. */
export function gluedCorpus(): GluedShape[] {
  const m = entryMaker();
  const header = m.header({ id: "0195f0a0-0000-7000-8000-00000000c0de" });
  const u1 = m.user("u1", null, "héllo ✓ — the first question");
  const a1 = m.assistant("a1", "u1", 'an answer with a `}{` and a "}{" in it');
  const compaction = m.entry("compaction", "c1", "a1", {
    summary: `## Goal\n${"The user works on the parser; decisions so far. ".repeat(150)}`,
    firstKeptEntryId: "u1",
    tokensBefore: 48_000,
  });
  const u2 = m.user("u2", "c1", "and then?");
  const a2 = m.assistant("a2", "u2");
  const u2b = m.user("u2b", "a1", "the next message");
  const a2b = m.assistant("a2b", "u2b");
  const u3 = m.user("u3", "u2b", "after the torn one");
  const tricky = m.user("t1", "u1", 'a string with }{"type":"message"} and {"type": inside, and \\"}{');
  const halfOf = (entry: SessionEntry) => JSON.stringify(entry).slice(0, 60);
  return [
    shape("assistant + 7 KB compaction", header, { lines: [[header], [u1], [a1, compaction], [u2], [a2]] }),
    shape("assistant + the next user message", header, { lines: [[header], [u1], [a1, u2b], [a2b]] }),
    shape("glued + torn: two records, then half a third", header, {
      lines: [[header], [u1], [a1, u2b, halfOf(a2b)], [u3]],
      damaged: true,
    }),
    shape("a glued header: header and first entry on line 1", header, { lines: [[header, u1], [a1], [u2b]] }),
    shape("three records on one line", header, { lines: [[header], [u1, a1, u2b], [a2b]] }),
    shape("a record glued to garbage", header, {
      lines: [[header], [u1], [a1, "garbage, not JSON at all"], [u2b]],
      damaged: true,
    }),
    shape("garbage glued to a record (a torn line, then the next write)", header, {
      lines: [[header], [u1], [halfOf(a2b), a1], [u2b]],
      damaged: true,
    }),
    shape("}{ inside string values", header, { lines: [[header], [u1], [tricky, a1], [u2b]] }),
    shape("a glued line at the very end, without a newline", header, {
      lines: [[header], [u1], [a1, u2b]],
      unterminated: true,
    }),
  ];
}
