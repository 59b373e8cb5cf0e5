import { readSync, type Stats } from "node:fs";
import { CURRENT_SESSION_VERSION } from "../core/entry.js";
import type { BytePart, SessionIssue } from "../core/issues.js";
import { checkEntry, checkHeader } from "../core/validate.js";
import { type LineRecord, mayHoldGluedRecords, readLineRecords } from "../format/jsonl/line-records.js";
import { isBlank, LineSplitter, type RawLine, scanEntryPrefix } from "../format/jsonl/lines.js";
import { takeStamp } from "./file-stamp.js";
import { CHUNK } from "./read-file.js";
import { KIND, kindOfEntry, kindOfPrefix } from "./sidecar-index-kind.js";
import { DANGLING, IdTable, type LinePosition, NO_PARENT, type SessionIndex } from "./sidecar-index-model.js";

/** Thrown inside the indexer for files it does not index (older formats): callers read the whole file. */
export class NotIndexable extends Error {}

/**
 * Scans `fd` from `start` (the whole file, or what was appended after an index) into `builder`.
 * `stats` must be taken before the scan: lines appended while it runs then make the file larger
 * than its stamp says, so the next use reads them.
 */
export function scanInto(
  builder: IndexBuilder,
  fd: number,
  stats: Stats,
  start = { line: 0, offset: 0 },
): SessionIndex {
  const splitter = new LineSplitter((raw) => builder.onLine(raw), start);
  const buffer = Buffer.allocUnsafe(CHUNK);
  let position = start.offset;
  for (;;) {
    const n = readSync(fd, buffer, 0, CHUNK, position);
    if (n === 0) break;
    splitter.push(buffer.subarray(0, n));
    position += n;
  }
  return builder.finish(fd, stats, splitter.completeBytes, splitter.completeLines);
}

/** Collects entries while scanning; also continues an existing index over appended lines. */
export class IndexBuilder {
  readonly ids: string[] = [];
  readonly parents: number[] = [];
  readonly kinds: number[] = [];
  readonly offsets: number[] = [];
  readonly lengths: number[] = [];
  readonly lines: number[] = [];
  readonly byId = new Map<string, number>();
  readonly parentIds = new Map<number, string>();
  readonly issues: SessionIssue[] = [];
  header: LinePosition | null = null;
  /** Where the last complete line starts: the stamp hashes it, so an index never outlives its edit. */
  lastLineStart = 0;
  leaf = -1;

  static continuing(index: SessionIndex): IndexBuilder {
    const builder = new IndexBuilder();
    // Element by element: spreading 100,000+ values into push() overflows the argument limit.
    for (let n = 0; n < index.ids.count; n++) {
      const id = index.ids.at(n);
      builder.ids.push(id);
      if (!builder.byId.has(id)) builder.byId.set(id, n);
      builder.parents.push(index.parents[n] as number);
      builder.kinds.push(index.kinds[n] as number);
      builder.offsets.push(index.offsets[n] as number);
      builder.lengths.push(index.lengths[n] as number);
      builder.lines.push(index.lines[n] as number);
    }
    for (const [i, parentId] of Object.entries(index.dangling)) builder.parentIds.set(Number(i), parentId);
    builder.issues.push(...index.issues);
    builder.header = index.header;
    builder.lastLineStart = index.stamp.covered - index.stamp.tail.bytes;
    builder.leaf = index.leaf;
    return builder;
  }

  onLine(raw: RawLine): void {
    this.lastLineStart = raw.offset;
    if (isBlank(raw.bytes)) return;
    if (this.header === null) {
      this.readHeader(raw);
      return;
    }
    const prefix = scanEntryPrefix(raw.bytes);
    // Custom entries are parsed: a leaf marker is told from the others only by its customType. So
    // is a line with `}{` in it: it may hold records glued by a lost newline, and each is indexed.
    if (prefix && prefix.type !== "custom" && !mayHoldGluedRecords(raw.bytes)) {
      this.add(prefix.id, prefix.parentId, kindOfPrefix(prefix.type, prefix.role), raw);
      return;
    }
    for (const { value, part } of this.parse(raw)) this.addEntry(value, raw, part);
  }

  /** Line 1: the header, and the entries glued after it if its newline was lost. */
  private readHeader(raw: RawLine): void {
    const [first, ...rest] = this.parse(raw);
    const checked = checkHeader(first?.value);
    if (!checked.ok) throw new NotIndexable("no readable header");
    if ((checked.value.version ?? 1) < CURRENT_SESSION_VERSION) throw new NotIndexable("older format");
    this.header = { offset: raw.offset, length: raw.bytes.length };
    for (const { value, part } of rest) this.addEntry(value, raw, part);
  }

  /** A parsed record of `raw`, indexed when it is a valid entry (reported when it is not). */
  private addEntry(value: unknown, raw: RawLine, part: BytePart | null): void {
    const checked = checkEntry(value);
    if (checked.ok) this.add(checked.value.id, checked.value.parentId, kindOfEntry(checked.value), raw);
    else {
      const place = part ? `Line ${raw.line}, bytes ${part.start}–${part.end}` : `Line ${raw.line}`;
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
    if (this.byId.has(id)) return;
    const n = this.ids.length;
    this.byId.set(id, n);
    this.ids.push(id);
    this.kinds.push(kind);
    this.offsets.push(raw.offset);
    this.lengths.push(raw.bytes.length);
    this.lines.push(raw.line);
    const parent = parentId === null ? NO_PARENT : (this.byId.get(parentId) ?? DANGLING);
    this.parents.push(parent);
    if (parent === DANGLING) this.parentIds.set(n, parentId as string);
    // A leaf marker says "the leaf is my parent", if the parent is already known.
    this.leaf = kind === KIND.leafMarker ? (parent >= 0 ? parent : -1) : n;
  }

  /** The index of the lines seen, stamped with `stats` (taken before the scan) and two hashed lines. */
  finish(fd: number, stats: Stats, indexedBytes: number, indexedLines: number): SessionIndex {
    if (!this.header) throw new NotIndexable("no header");
    const dangling: Record<number, string> = {};
    for (const [n, parentId] of this.parentIds) {
      const parent = this.byId.get(parentId);
      if (parent === undefined) dangling[n] = parentId;
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
      ids: IdTable.of(this.ids),
      parents: Int32Array.from(this.parents),
      kinds: Uint8Array.from(this.kinds),
      offsets: Float64Array.from(this.offsets),
      lengths: Uint32Array.from(this.lengths),
      lines: Uint32Array.from(this.lines),
      dangling,
      issues: this.issues,
    };
  }
}
