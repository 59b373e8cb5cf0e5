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

/**
 * Hands the complete lines of `buffer`'s first `filled` bytes to `builder`, `scan` telling the
 * number and file offset of the first, and moved past them; the bytes used.
 *
 * A line may hold records glued on one line (then it is parsed, and each is indexed as the whole
 * read splits the line) when it has one of two marks that a single record never has outside its
 * strings (where quotes are escaped):
 *
 * - `}{`: a whole record with the next one after it (a lost newline);
 * - a second `"parentId":` key: an entry written after a record cut short (a crash mid-write, then
 *   the next append on the same line, pi #8575). The cut record rarely ends in `}`, and its start
 *   still reads as an entry, so without this the index held the cut record and never the whole one.
 *
 * A key nested in a record's content costs one parse. Each mark is searched once per buffer,
 * moving forward with the lines, not once per line (a search would run on to the buffer's end when
 * a line does not have it). Kept in this loop's variables: a helper object cost the scan more.
 */
function scanLines(
  builder: IndexBuilder,
  buffer: Buffer,
  filled: number,
  scan: { line: number; offset: number },
): number {
  const bytes = buffer.subarray(0, filled);
  let glue = bytes.indexOf(GLUE);
  let parentKey = nextParentKey(bytes, 0);
  let start = 0;
  for (let newline = bytes.indexOf(NEWLINE); newline !== -1; newline = bytes.indexOf(NEWLINE, start)) {
    const end = newline > start && bytes[newline - 1] === CR ? newline - 1 : newline;
    if (glue !== -1 && glue < start) glue = bytes.indexOf(GLUE, start);
    if (parentKey !== -1 && parentKey < start) parentKey = nextParentKey(bytes, start);
    let secondKey = false;
    if (parentKey !== -1 && parentKey < end) {
      parentKey = nextParentKey(bytes, parentKey + PARENT_KEY.length);
      secondKey = parentKey !== -1 && parentKey < end;
    }
    scan.line++;
    const mayGlue = secondKey || (glue !== -1 && glue < end);
    builder.onBytes(bytes, start, end, scan.line, scan.offset, mayGlue);
    scan.offset += newline + 1 - start;
    start = newline + 1;
  }
  return start;
}

const NEWLINE = 0x0a;
const CR = 0x0d;
const GLUE = Buffer.from("}{");
const PARENT_KEY = Buffer.from('"parentId":');
/**
 * The key is searched by its one uppercase byte, whose `memchr` skips most of JSON text, each hit
 * then compared whole: a search for the whole key, a long needle of JSON's commonest bytes, made
 * the index scan a third slower (measured).
 */
const RARE_BYTE = 0x49; // "I"
const RARE_AT = PARENT_KEY.indexOf(RARE_BYTE);
/** False hits after which the whole key is searched instead: base64 (an image) has an "I" in 64 bytes. */
const MISSES_BEFORE_WHOLE_KEY = 8;

/** Where the first `"parentId":` at or after `from` starts; -1 when there is none. */
function nextParentKey(bytes: Buffer, from: number): number {
  let misses = 0;
  for (
    let rare = bytes.indexOf(RARE_BYTE, from + RARE_AT);
    rare !== -1;
    rare = bytes.indexOf(RARE_BYTE, rare + 1)
  ) {
    const at = rare - RARE_AT;
    if (isParentKeyAt(bytes, at)) return at;
    if (++misses === MISSES_BEFORE_WHOLE_KEY) return bytes.indexOf(PARENT_KEY, at + 1);
  }
  return -1;
}

/** Whether `"parentId":` is at `at`: compared here, as `sameBytes` made the scan measurably slower. */
function isParentKeyAt(bytes: Buffer, at: number): boolean {
  for (let i = 0; i < PARENT_KEY.length; i++) if (bytes[at + i] !== PARENT_KEY[i]) return false;
  return true;
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
   * `offset` of the file; `mayGlue`: whether it may hold records glued on one line (`scanLines`).
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
    // is a line that may hold glued records: each is indexed as the whole read splits the line.
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
