import { readSync, type Stats } from "node:fs";
import { CURRENT_SESSION_VERSION, headerVersion } from "../core/entry.js";
import type { BytePart, SessionIssue } from "../core/issues.js";
import { checkEntryRead, checkHeader, malformedNote } from "../core/validate.js";
import { type LineRecord, readLineRecords } from "../format/jsonl/line-records.js";
import {
  isBlank,
  PrefixSpans,
  type RawLine,
  type RoleCode,
  sameBytes,
  scanPrefixSpans,
} from "../format/jsonl/lines.js";
import { takeStamp } from "./file-stamp.js";
import { CHUNK } from "./read-file.js";
import { IdSet } from "./sidecar-index-ids.js";
import { KIND, kindOfEntry, kindOfTypeBytes } from "./sidecar-index-kind.js";
import { DANGLING, type LinePosition, NO_PARENT, type SessionIndex } from "./sidecar-index-model.js";

/** Thrown inside the indexer for files it does not index (older formats): callers read the whole file. */
export class NotIndexable extends Error {}

/**
 * Scans `fd` from `start` (the whole file, or what was appended after an index) into `builder`.
 * `stats` must be taken before the scan: lines appended while it runs then make the file larger
 * than its stamp says, so the next use reads them.
 *
 * The file is read into one buffer, and each complete line is handed to the builder as its
 * position there: no line object, buffer view or copy per line. The line a read ends inside is
 * moved to the buffer's start and read on (the buffer grows for a line longer than itself), so
 * every line is whole in the buffer, and the bytes after the last newline (a torn or unfinished
 * line) are not indexed.
 */
export function scanInto(
  builder: IndexBuilder,
  fd: number,
  stats: Stats,
  start = { line: 0, offset: 0 },
  chunkBytes = CHUNK,
): SessionIndex {
  const scan = { line: start.line, offset: start.offset };
  let buffer = Buffer.allocUnsafe(chunkBytes);
  let filled = 0;
  for (;;) {
    const n = readSync(fd, buffer, filled, buffer.length - filled, scan.offset + filled);
    if (n === 0) break;
    filled += n;
    const used = scanLines(builder, buffer, filled, scan);
    if (used === 0 && filled === buffer.length) {
      const bigger = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(bigger, 0, 0, filled);
      buffer = bigger;
    } else if (used > 0) {
      buffer.copyWithin(0, used, filled);
      filled -= used;
    }
  }
  return builder.finish(fd, stats, scan.offset, scan.line);
}

const GLUE = Buffer.from("}{");
const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * Hands the complete lines of `buffer`'s first `filled` bytes to `builder`, `scan` telling the
 * number and file offset of the first, and moved past them; the bytes used.
 */
function scanLines(
  builder: IndexBuilder,
  buffer: Buffer,
  filled: number,
  scan: { line: number; offset: number },
): number {
  const bytes = buffer.subarray(0, filled);
  // Where `}{` is next: a single record never has it outside its strings, so a line without it is
  // one record, and a line with it may hold records glued by a lost newline (it is parsed to
  // know). Searched once per buffer, not once per line (that search would run on to the buffer's
  // end when a line does not have it).
  let glue = bytes.indexOf(GLUE);
  let start = 0;
  for (let newline = bytes.indexOf(NEWLINE); newline !== -1; newline = bytes.indexOf(NEWLINE, start)) {
    const end = newline > start && bytes[newline - 1] === CR ? newline - 1 : newline;
    if (glue !== -1 && glue < start) glue = bytes.indexOf(GLUE, start);
    scan.line++;
    builder.onBytes(bytes, start, end, scan.line, scan.offset, glue !== -1 && glue < end);
    scan.offset += newline + 1 - start;
    start = newline + 1;
  }
  return start;
}

/** Entry numbers are kept in columns that start this long and double as needed. */
const FIRST_ROWS = 1 << 12;
const OPEN_BRACE = 0x7b;
const CUSTOM_TYPE = Buffer.from("custom");

/** Collects entries while scanning; also continues an existing index over appended lines. */
export class IndexBuilder {
  protected readonly ids = new IdSet();
  private parents = new Int32Array(FIRST_ROWS);
  protected kinds = new Uint8Array(FIRST_ROWS);
  private offsets = new Float64Array(FIRST_ROWS);
  private lengths = new Uint32Array(FIRST_ROWS);
  private lines = new Uint32Array(FIRST_ROWS);
  /** Parent ids not seen (yet) when their child was indexed, by entry number. */
  private readonly parentIds = new Map<number, string>();
  private readonly issues: SessionIssue[] = [];
  private readonly spans = new PrefixSpans();
  private header: LinePosition | null = null;
  /** Where the last complete line starts: the stamp hashes it, so an index never outlives its edit. */
  private lastLineStart = 0;
  private leaf = -1;
  /**
   * The role the last line's start told, when the line was indexed from its start alone: the
   * viewer's look of the line needs it (`null`: the line was parsed, its role not read).
   */
  protected lineRole: RoleCode | null = null;

  static continuing(index: SessionIndex): IndexBuilder {
    const builder = new IndexBuilder();
    const count = index.ids.count;
    builder.reserve(count);
    const { text, ends } = index.ids;
    for (let n = 0; n < count; n++)
      builder.ids.push(text, n === 0 ? 0 : (ends[n - 1] as number), ends[n] as number);
    builder.parents.set(index.parents);
    builder.kinds.set(index.kinds);
    builder.offsets.set(index.offsets);
    builder.lengths.set(index.lengths);
    builder.lines.set(index.lines);
    for (const [i, parentId] of Object.entries(index.dangling)) builder.parentIds.set(Number(i), parentId);
    builder.issues.push(...index.issues);
    builder.header = index.header;
    builder.lastLineStart = index.stamp.covered - index.stamp.tail.bytes;
    builder.leaf = index.leaf;
    return builder;
  }

  /** Entries indexed so far. */
  get count(): number {
    return this.ids.count;
  }

  /**
   * The complete line at bytes `start`–`end` of `buffer` (no newline), line number `line` at byte
   * `offset` of the file; `mayGlue`: whether `}{` is in it.
   */
  onBytes(buffer: Buffer, start: number, end: number, line: number, offset: number, mayGlue: boolean): void {
    this.lastLineStart = offset;
    this.lineRole = null;
    if (buffer[start] !== OPEN_BRACE && isBlank(buffer.subarray(start, end))) return;
    if (this.header === null) {
      this.readHeader({ bytes: buffer.subarray(start, end), line, offset });
      return;
    }
    // Custom entries are parsed: a leaf marker is told from the others only by its customType. So
    // is a line with `}{` in it: it may hold records glued by a lost newline, and each is indexed.
    if (!mayGlue && this.indexFromStart(buffer, start, end, line, offset)) return;
    const raw = { bytes: buffer.subarray(start, end), line, offset };
    for (const { value, part } of this.parse(raw)) this.addEntry(value, raw, part);
  }

  /**
   * Indexes an entry line from its start alone (`scanPrefixSpans`), its id found from its bytes;
   * false for a line that must be parsed (another shape, or a custom entry).
   */
  private indexFromStart(buffer: Buffer, start: number, end: number, line: number, offset: number): boolean {
    const spans = this.spans;
    if (!scanPrefixSpans(buffer, start, end, spans)) return false;
    // A custom entry is parsed: a leaf marker is told from the others only by its customType.
    if (sameBytes(buffer, spans.typeStart, spans.typeEnd, CUSTOM_TYPE)) return false;
    const kind = kindOfTypeBytes(buffer, spans.typeStart, spans.typeEnd, spans.role);
    this.lineRole = spans.role;
    if (!this.ids.addBytes(buffer, spans.idStart, spans.idEnd)) return true;
    const { parentStart, parentEnd } = spans;
    if (parentStart < 0) {
      this.added(kind, offset, end - start, line, NO_PARENT);
      return true;
    }
    const parent = this.ids.findBytes(buffer, parentStart, parentEnd);
    const n = this.added(kind, offset, end - start, line, parent === -1 ? DANGLING : parent);
    if (parent === -1) this.parentIds.set(n, buffer.toString("latin1", parentStart, parentEnd));
    return true;
  }

  /** Line 1: the header, and the entries glued after it if its newline was lost. */
  private readHeader(raw: RawLine): void {
    const [first, ...rest] = this.parse(raw);
    const checked = checkHeader(first?.value);
    if (!checked.ok) throw new NotIndexable("no readable header");
    if (headerVersion(checked.value) < CURRENT_SESSION_VERSION) throw new NotIndexable("older format");
    this.header = { offset: raw.offset, length: raw.bytes.length };
    for (const { value, part } of rest) this.addEntry(value, raw, part);
  }

  /** A parsed record of `raw`, indexed when it is a valid entry (reported when it is not). */
  private addEntry(value: unknown, raw: RawLine, part: BytePart | null): void {
    const checked = checkEntryRead(value);
    const place = part ? `Line ${raw.line}, bytes ${part.start}–${part.end}` : `Line ${raw.line}`;
    if (checked.ok) {
      // Kept, as the whole read keeps it; the issue makes a resume through the index give way.
      if (checked.malformed !== undefined) {
        const message = `${place}: ${malformedNote(checked.value, checked.malformed)}`;
        this.report({ code: "malformed_entry", severity: "warning", message }, raw, part);
      }
      this.add(checked.value.id, checked.value.parentId, kindOfEntry(checked.value), raw);
    } else {
      this.report(
        { code: "invalid_entry", severity: "error", message: `${place}: ${checked.reason}` },
        raw,
        part,
      );
    }
  }

  private parse(raw: RawLine): LineRecord[] {
    return readLineRecords(raw, (issue) => this.report(issue, raw, issue.part ?? null));
  }

  private report(
    issue: Pick<SessionIssue, "code" | "severity" | "message">,
    raw: RawLine,
    part: BytePart | null,
  ): void {
    const { code, severity, message } = issue;
    const placed: SessionIssue = { code, severity, message, line: raw.line, offset: raw.offset };
    if (part) placed.part = part;
    this.issues.push(placed);
  }

  /** As `SessionTree.load`: the first of a duplicate id wins and the leaf follows storage order. */
  private add(id: string, parentId: string | null, kind: number, raw: RawLine): void {
    if (!this.ids.add(id)) return;
    if (parentId === null) {
      this.added(kind, raw.offset, raw.bytes.length, raw.line, NO_PARENT);
      return;
    }
    const parent = this.ids.find(parentId);
    const n = this.added(kind, raw.offset, raw.bytes.length, raw.line, parent === -1 ? DANGLING : parent);
    if (parent === -1) this.parentIds.set(n, parentId);
  }

  /** The columns of the entry whose id was just added; its number. */
  private added(kind: number, offset: number, length: number, line: number, parent: number): number {
    const n = this.ids.count - 1;
    this.reserve(n + 1);
    this.kinds[n] = kind;
    this.offsets[n] = offset;
    this.lengths[n] = length;
    this.lines[n] = line;
    this.parents[n] = parent;
    // A leaf marker says "the leaf is my parent", if the parent is already known.
    this.leaf = kind === KIND.leafMarker ? (parent >= 0 ? parent : -1) : n;
    return n;
  }

  /** Columns long enough for `rows` entries. */
  private reserve(rows: number): void {
    if (rows <= this.kinds.length) return;
    let length = this.kinds.length;
    while (length < rows) length *= 2;
    this.parents = grown(this.parents, new Int32Array(length));
    this.kinds = grown(this.kinds, new Uint8Array(length));
    this.offsets = grown(this.offsets, new Float64Array(length));
    this.lengths = grown(this.lengths, new Uint32Array(length));
    this.lines = grown(this.lines, new Uint32Array(length));
  }

  /** The index of the lines seen, stamped with `stats` (taken before the scan) and two hashed lines. */
  finish(fd: number, stats: Stats, indexedBytes: number, indexedLines: number): SessionIndex {
    if (!this.header) throw new NotIndexable("no header");
    const count = this.ids.count;
    const dangling: Record<number, string> = {};
    for (const [n, parentId] of this.parentIds) {
      const parent = this.ids.find(parentId);
      if (parent === -1) dangling[n] = parentId;
      else this.parents[n] = parent;
    }
    // Hashes the header line and the last indexed line, newlines included: an edit of either, or
    // a cut through either, fails the stamp.
    const stamp = takeStamp(fd, stats, {
      covered: indexedBytes,
      head: this.header.offset + this.header.length + 1,
      tail: indexedBytes - this.lastLineStart,
    });
    return {
      stamp,
      indexedBytes,
      indexedLines,
      header: this.header,
      leaf: this.leaf,
      ids: this.ids.table(),
      parents: this.parents.slice(0, count),
      kinds: this.kinds.slice(0, count),
      offsets: this.offsets.slice(0, count),
      lengths: this.lengths.slice(0, count),
      lines: this.lines.slice(0, count),
      dangling,
      issues: this.issues,
    };
  }
}

/** `into` (a longer column) holding `from`'s values. */
function grown<T extends Int32Array | Uint8Array | Float64Array | Uint32Array>(from: T, into: T): T {
  into.set(from);
  return into;
}
