/**
 * The sidecar indexer and the viewer's line looks as they were before the scan was made to walk
 * its buffer (no line objects, ids found from bytes, typed columns): the reference the scan must
 * still agree with, entry for entry, look for look (sidecar-index-scan.unit.test.ts). Kept
 * verbatim apart from names; it reuses what that change did not touch (the line splitter, the
 * record reader, checks, kinds, stamps).
 */
import { readSync, type Stats } from "node:fs";
import {
  CURRENT_SESSION_VERSION,
  ENTRY_TYPES,
  type EntryType,
  entryTypeInfo,
  headerVersion,
  type SessionEntry,
} from "../../../src/core/entry.js";
import type { BytePart, SessionIssue } from "../../../src/core/issues.js";
import { checkEntryRead, checkHeader, malformedNote } from "../../../src/core/validate.js";
import { takeStamp } from "../../../src/file/file-stamp.js";
import { CHUNK } from "../../../src/file/read-file.js";
import { NotIndexable } from "../../../src/file/sidecar-index-builder.js";
import { KIND, kindOfEntry } from "../../../src/file/sidecar-index-kind.js";
import {
  DANGLING,
  IdTable,
  type LinePosition,
  NO_PARENT,
  type SessionIndex,
} from "../../../src/file/sidecar-index-model.js";
import { type LineRecord, readLineRecords } from "../../../src/format/jsonl/line-records.js";
import { isBlank, LineSplitter, type RawLine } from "../../../src/format/jsonl/lines.js";
import { entryLook, LOOKS, type Look } from "../../../src/viewer/browser/entry-line.js";

/**
 * Scans `fd` from `start` (the whole file, or what was appended after an index) into `builder`.
 * `stats` must be taken before the scan: lines appended while it runs then make the file larger
 * than its stamp says, so the next use reads them.
 */
export function referenceScan(
  builder: ReferenceBuilder,
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
export class ReferenceBuilder {
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

  static continuing(index: SessionIndex): ReferenceBuilder {
    const builder = new ReferenceBuilder();
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
    // is a line that may hold glued records: each is indexed as the whole read splits the line.
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
    if (headerVersion(checked.value) < CURRENT_SESSION_VERSION) throw new NotIndexable("older format");
    this.header = { offset: raw.offset, length: raw.bytes.length };
    for (const { value, part } of rest) this.addEntry(value, raw, part);
  }

  /** A parsed record of `raw`, indexed when it is a valid entry (reported when it is not). */
  private addEntry(value: unknown, raw: RawLine, part: BytePart | null): void {
    const checked = checkEntryRead(value);
    if (checked.ok) {
      if (checked.malformed !== undefined) {
        const place = part ? `Line ${raw.line}, bytes ${part.start}–${part.end}` : `Line ${raw.line}`;
        const message = `${place}: ${malformedNote(checked.value, checked.malformed)}`;
        this.report({ code: "malformed_entry", severity: "warning", message }, raw, part);
      }
      this.add(checked.value.id, checked.value.parentId, kindOfEntry(checked.value), raw);
    } else {
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

/** What `scanEntryPrefix` reads from the start of an entry line without parsing it. */
interface EntryPrefix {
  type: string;
  id: string;
  parentId: string | null;
  /** The message role, for `message` lines whose `message` follows `timestamp` (as pi and we write them). */
  role: string | undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const TYPE_KEY = Buffer.from('{"type":');
const ID_KEY = Buffer.from(',"id":');
const PARENT_KEY = Buffer.from(',"parentId":');
const NULL_WORD = Buffer.from("null");
const TIMESTAMP_KEY = Buffer.from(',"timestamp":');
const ROLE_KEY = Buffer.from(',"message":{"role":');

/**
 * Reads `type`, `id` and `parentId` from a line that starts the way pi and sessiontree write entries
 * (`{"type":…,"id":…,"parentId":…`), in a fraction of a JSON.parse. Returns null for any other
 * shape, or when a value holds an escape or non-ASCII byte: the caller then parses the line. It does
 * not prove the rest of the line is valid JSON; whoever uses the entry's content parses it then.
 */
function scanEntryPrefix(line: Buffer): EntryPrefix | null {
  if (!startsWithAt(line, 0, TYPE_KEY)) return null;
  const type = readPlainString(line, TYPE_KEY.length);
  if (!type || type.value === "" || type.value === "session") return null;
  if (!startsWithAt(line, type.end, ID_KEY)) return null;
  const id = readPlainString(line, type.end + ID_KEY.length);
  if (!id || id.value === "") return null;
  if (!startsWithAt(line, id.end, PARENT_KEY)) return null;
  let position = id.end + PARENT_KEY.length;
  let parentId: string | null = null;
  if (startsWithAt(line, position, NULL_WORD)) position += NULL_WORD.length;
  else {
    const parent = readPlainString(line, position);
    if (!parent) return null;
    parentId = parent.value;
    position = parent.end;
  }
  return { type: type.value, id: id.value, parentId, role: readRole(line, type.value, position) };
}

function readRole(line: Buffer, type: string, position: number): string | undefined {
  if (type !== "message" || !startsWithAt(line, position, TIMESTAMP_KEY)) return undefined;
  const timestamp = readPlainString(line, position + TIMESTAMP_KEY.length);
  if (!timestamp || !startsWithAt(line, timestamp.end, ROLE_KEY)) return undefined;
  return readPlainString(line, timestamp.end + ROLE_KEY.length)?.value;
}

function startsWithAt(line: Buffer, position: number, literal: Buffer): boolean {
  if (position + literal.length > line.length) return false;
  for (let i = 0; i < literal.length; i++) if (line[position + i] !== literal[i]) return false;
  return true;
}

/** A JSON string at `start` made of plain ASCII (no escapes), and the position after its quote. */
function readPlainString(line: Buffer, start: number): { value: string; end: number } | null {
  if (line[start] !== QUOTE) return null;
  const close = line.indexOf(QUOTE, start + 1);
  if (close === -1) return null;
  for (let i = start + 1; i < close; i++) {
    const byte = line[i] as number;
    if (byte === BACKSLASH || byte >= 0x80 || byte < 0x20) return null;
  }
  return { value: line.toString("latin1", start + 1, close), end: close + 1 };
}

/** A look as its position in LOOKS (what the shape's `looks` characters encode). */
type LookCode = number;

/** What the viewer cannot draw from the index at all: a Claude Code subagent line (named from others). */
const NEEDS_WHOLE_READ = 255;

const look = (name: Look): LookCode => LOOKS.indexOf(name);

/** Every type but `message` draws one way whatever its content (format/describe.ts's kinds). */
const TYPE_LOOKS: { readonly [T in Exclude<EntryType, "message">]: Look } = {
  compaction: "compaction",
  branch_summary: "branchSummary",
  custom_message: "customMessage",
  model_change: "meta",
  thinking_level_change: "meta",
  label: "label",
  session_info: "meta",
  custom: "custom",
};

/** Looks by index kind; -1: a message, whose look needs its line. */
const LOOK_OF_KIND: readonly LookCode[] = (() => {
  const table = new Array<LookCode>(256).fill(look("other"));
  for (const [type, name] of Object.entries(TYPE_LOOKS))
    table[ENTRY_TYPES[type as Exclude<EntryType, "message">].code] = look(name);
  table[KIND.leafMarker] = look("custom");
  for (const kind of [KIND.message, KIND.assistant, KIND.messageUnknownRole]) table[kind] = -1;
  return table;
})();

const CUSTOM = ENTRY_TYPES.custom.code;
const SIDECHAIN_TYPE = "claude-code.sidechain";

/** Whether the look of an entry of this kind is known without its line. */
function lookOfKind(kind: number): LookCode | null {
  const code = LOOK_OF_KIND[kind] as LookCode;
  return code >= 0 && kind !== CUSTOM ? code : null;
}

/**
 * The look of an entry of `kind` whose line is `line` (without its newline). A line that does not
 * end its object (cut short, as by a torn write) needs the whole read, which reports it.
 */
export function referenceLook(line: Buffer, kind: number): LookCode {
  if (line[line.length - 1] !== CLOSE) return NEEDS_WHOLE_READ;
  if (mayHoldAnotherRecord(line) && parse(line) === null) return NEEDS_WHOLE_READ;
  const known = lookOfKind(kind);
  if (known !== null) return known;
  if (kind === CUSTOM) return customLook(line);
  return plainMessageLook(line, kind) ?? parsedLook(line);
}

/** A custom entry is parsed: a subagent's line is named from the lines around it. */
function customLook(line: Buffer): LookCode {
  const value = parse(line) as { customType?: unknown } | null;
  return value?.customType === SIDECHAIN_TYPE ? NEEDS_WHOLE_READ : look("custom");
}

const STOP_KEY = Buffer.from('"stopReason":');
const IS_ERROR_KEY = Buffer.from('"isError":');

function plainMessageLook(line: Buffer, kind: number): LookCode | null {
  // The indexer read an assistant's role already (half of a session's lines): not read again.
  const role = kind === KIND.assistant ? "assistant" : scanEntryPrefix(line)?.role;
  switch (role) {
    case undefined:
      return null;
    case "user":
      return look("user");
    case "assistant": {
      const stop = lastFieldValue(line, STOP_KEY);
      if (stop === null) return null;
      return look(stop === '"error"' || stop === '"aborted"' ? "error" : "assistant");
    }
    case "toolResult": {
      const failed = lastFieldValue(line, IS_ERROR_KEY);
      if (failed === null) return null;
      return look(failed === "true" ? "error" : "tool");
    }
    default:
      return look("other");
  }
}

function parsedLook(line: Buffer): LookCode {
  const checked = checkEntryRead(parse(line));
  return checked.ok && checked.malformed === undefined
    ? look(entryLook(checked.value as SessionEntry))
    : NEEDS_WHOLE_READ;
}

const RECORD_START = Buffer.from('{"type":"');
/** The `type` of every record a session line may start with (entries and the header). */
const RECORD_TYPES = new Set<string>([...Object.keys(ENTRY_TYPES), "session"]);

/**
 * Whether a record starts inside the line, as when pi's next line was written after a torn one
 * (a crash cut its write; the glued line then ends in `}` like any other, and the indexer reads
 * only its start). Inside a valid JSON string a quote is escaped, so an unescaped `{"type":"`
 * naming an entry type after the line's start is such a record, or an object nested in an
 * extension's data that happens to look like one: either way the caller parses the line to know.
 */
function mayHoldAnotherRecord(line: Buffer): boolean {
  for (let at = line.indexOf(RECORD_START, 1); at >= 0; at = line.indexOf(RECORD_START, at + 1)) {
    const from = at + RECORD_START.length;
    const end = line.indexOf(QUOTE, from);
    if (end > from && end - from <= 24 && RECORD_TYPES.has(line.toString("latin1", from, end))) return true;
  }
  return false;
}

function parse(line: Buffer): unknown {
  try {
    return JSON.parse(line.toString("utf8"));
  } catch {
    return null;
  }
}

const COMMA = 0x2c;
const COLON = 0x3a;
const CLOSE = 0x7d;
const OPEN = 0x7b;

/**
 * The raw value (`"stop"`, `true`) of the last `key` of the line when it is one of the object
 * closed just before the line's last `}`: from the key on, no backslash, only `"key":scalar`
 * pairs, then `}}` ending the line. With no escape there, every quote opens or closes a string,
 * so the key is a real key of that object. Null for any other line.
 */
function lastFieldValue(line: Buffer, key: Buffer): string | null {
  // Looked for near the end only (a backward search of a long line is most of this function's
  // time): a key further back has more than TAIL_WINDOW bytes of fields after it, and such a line
  // is parsed, as any line this function does not answer for.
  const from = Math.max(0, line.length - TAIL_WINDOW);
  const found = line.subarray(from).lastIndexOf(key);
  const at = found < 0 ? -1 : from + found;
  if (at <= 0 || (line[at - 1] !== COMMA && line[at - 1] !== OPEN)) return null;
  if (line.indexOf(BACKSLASH, at) >= 0) return null;
  let position = at + key.length;
  const first = scalarEnd(line, position);
  if (first < 0) return null;
  const value = line.toString("latin1", position, first);
  position = first;
  while (line[position] === COMMA) {
    position = pairEnd(line, position + 1);
    if (position < 0) return null;
  }
  return line[position] === CLOSE && line[position + 1] === CLOSE && position + 2 === line.length
    ? value
    : null;
}

/** How far from a line's end `lastFieldValue` looks for its key. */
const TAIL_WINDOW = 512;

/** The end of `"key":scalar` at `start`, or -1. */
function pairEnd(line: Buffer, start: number): number {
  if (line[start] !== QUOTE) return -1;
  const close = line.indexOf(QUOTE, start + 1);
  if (close < 0 || line[close + 1] !== COLON) return -1;
  return scalarEnd(line, close + 2);
}

/** The end of a string (no escapes: checked by the caller), number, true, false or null at `start`, or -1. */
function scalarEnd(line: Buffer, start: number): number {
  if (line[start] === QUOTE) {
    const close = line.indexOf(QUOTE, start + 1);
    return close < 0 ? -1 : close + 1;
  }
  let end = start;
  while (end < line.length && isScalarByte(line[end] as number)) end++;
  return end === start ? -1 : end;
}

/** Bytes of numbers and of true, false, null. */
const SCALAR_BYTES = new Uint8Array(256);
for (const char of "0123456789-+.eEtruefalsn") SCALAR_BYTES[char.charCodeAt(0)] = 1;

function isScalarByte(byte: number): boolean {
  return SCALAR_BYTES[byte] === 1;
}

/** The reference indexer, also taking each new entry's look, as the viewer's scan did. */
export class ReferenceLookingBuilder extends ReferenceBuilder {
  looks: number[] = [];

  override onLine(raw: RawLine): void {
    const before = this.ids.length;
    super.onLine(raw);
    if (this.ids.length !== before + 1) return;
    this.looks[before] = referenceLook(raw.bytes, this.kinds[before] as number);
  }
}

const GLUE = Buffer.from("}{");
const PARENT_ID_KEY = Buffer.from('"parentId":');

/** `}{` (a lost newline), or a second `"parentId":` (an entry written after a record cut short). */
function mayHoldGluedRecords(bytes: Buffer): boolean {
  const parentKey = bytes.indexOf(PARENT_ID_KEY);
  return (
    bytes.indexOf(GLUE) !== -1 || (parentKey !== -1 && bytes.indexOf(PARENT_ID_KEY, parentKey + 1) !== -1)
  );
}

/** The kind of a line the old indexer only scanned (its `kindOfPrefix`, kept as it was). */
function kindOfPrefix(type: string, role: string | undefined): number {
  if (type !== "message") return entryTypeInfo(type)?.code ?? KIND.other;
  if (role === undefined) return KIND.messageUnknownRole;
  return role === "assistant" ? KIND.assistant : KIND.message;
}
