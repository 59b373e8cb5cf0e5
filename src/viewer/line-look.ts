import { ENTRY_TYPES, type EntryType, type SessionEntry } from "../core/entry.js";
import { checkEntryRead } from "../core/validate.js";
import { KIND } from "../file/sidecar-index-kind.js";
import { SIDECHAIN_TYPE } from "../format/describe.js";
import { PrefixSpans, ROLE, type RoleCode, sameBytes, scanPrefixSpans } from "../format/jsonl/lines.js";
import { entryLook, LOOKS, type Look } from "./browser/entry-line.js";

/**
 * How a session file's line is drawn (`entryLook`), from its bytes and its sidecar-index kind,
 * without parsing the line when its shape allows: the tree's shape needs every entry's look before
 * anything is shown, and parsing every line of a 200 MB file is most of a whole read.
 *
 * A type other than `message` says its look alone. A message's look is its role's, except that
 * an assistant's that stopped on an error and a tool result that is an error draw as errors: the
 * role is read from the line's start (`scanPrefixSpans`, by the indexer as it goes), `stopReason`
 * and `isError` from its end, where pi and sessiontree write them
 * (`…,"stopReason":"stop","timestamp":…}}`). The end is read
 * only when it is plain (no escape from the key to the line's end, only scalars after the value,
 * the line closing two objects): then the key is one of the object that is the entry's last field,
 * `message` as pi writes entries. Any other line is parsed, so its look is `entryLook`'s own.
 */

/** A look as its position in LOOKS (what the shape's `looks` characters encode). */
export type LookCode = number;

/** What the viewer cannot draw from the index at all: a Claude Code subagent line (named from others). */
export const NEEDS_WHOLE_READ = 255;

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

/** Whether the look of an entry of this kind is known without its line. */
export function lookOfKind(kind: number): LookCode | null {
  const code = LOOK_OF_KIND[kind] as LookCode;
  return code >= 0 && kind !== CUSTOM ? code : null;
}

/**
 * The look of an entry of `kind` whose line is `line` (without its newline). A line that does not
 * end its object (cut short, as by a torn write) needs the whole read, which reports it. `role`:
 * the message role the indexer read from the line's start (`PrefixSpans`), when it did; null to
 * read it here.
 */
export function lookOfLine(line: Buffer, kind: number, role: RoleCode | null = null): LookCode {
  LINE_RECORDS.reset();
  return lookOfBytes(line, 0, line.length, kind, role, LINE_RECORDS);
}

/**
 * `lookOfLine` of the line at `start`..`end` of `buffer`, as the indexer hands it over: no buffer
 * view made per line (a tenth of the looks' time at 100,000 lines). `records` remembers where
 * the next `{"type":"` in `buffer` is; one per buffer whose bytes do not change while it is used.
 */
export function lookOfBytes(
  buffer: Buffer,
  start: number,
  end: number,
  kind: number,
  role: RoleCode | null,
  records: RecordStarts,
): LookCode {
  if (end <= start || buffer[end - 1] !== CLOSE) return NEEDS_WHOLE_READ;
  if (mayHoldAnotherRecord(buffer, start, end, records) && parse(buffer, start, end) === null)
    return NEEDS_WHOLE_READ;
  const known = lookOfKind(kind);
  if (known !== null) return known;
  if (kind === CUSTOM) return customLook(buffer, start, end);
  return plainMessageLook(buffer, start, end, kind, role) ?? parsedLook(buffer, start, end);
}

/** A custom entry is parsed: a subagent's line is named from the lines around it. */
function customLook(buffer: Buffer, start: number, end: number): LookCode {
  const value = parse(buffer, start, end) as { customType?: unknown } | null;
  return value?.customType === SIDECHAIN_TYPE ? NEEDS_WHOLE_READ : look("custom");
}

const STOP_KEY = Buffer.from('"stopReason":');
const IS_ERROR_KEY = Buffer.from('"isError":');
/** The values that draw a message as an error. */
const ERROR_STOPS: readonly Buffer[] = [Buffer.from('"error"'), Buffer.from('"aborted"')];
const TRUE = Buffer.from("true");

/** Filled by `roleOfLine`, line after line. */
const SPANS = new PrefixSpans();

function roleOfLine(buffer: Buffer, start: number, end: number): RoleCode {
  return scanPrefixSpans(buffer, start, end, SPANS) ? SPANS.role : ROLE.unread;
}

function plainMessageLook(
  buffer: Buffer,
  start: number,
  end: number,
  kind: number,
  known: RoleCode | null,
): LookCode | null {
  // The indexer read an assistant's role already (half of a session's lines): not read again.
  const role = kind === KIND.assistant ? ROLE.assistant : (known ?? roleOfLine(buffer, start, end));
  switch (role) {
    case ROLE.unread:
      return null;
    case ROLE.user:
      return look("user");
    case ROLE.assistant: {
      const stop = lastFieldAt(buffer, start, end, STOP_KEY);
      if (stop < 0) return null;
      const failed = ERROR_STOPS.some((value) =>
        sameBytes(buffer, stop, scalarEnd(buffer, stop, end), value),
      );
      return look(failed ? "error" : "assistant");
    }
    case ROLE.toolResult: {
      const failed = lastFieldAt(buffer, start, end, IS_ERROR_KEY);
      if (failed < 0) return null;
      return look(sameBytes(buffer, failed, scalarEnd(buffer, failed, end), TRUE) ? "error" : "tool");
    }
    default:
      return look("other");
  }
}

function parsedLook(buffer: Buffer, start: number, end: number): LookCode {
  const checked = checkEntryRead(parse(buffer, start, end));
  // A malformed entry is the whole read's to show, as the indexed reader leaves it to it.
  return checked.ok && checked.malformed === undefined
    ? look(entryLook(checked.value as SessionEntry))
    : NEEDS_WHOLE_READ;
}

const RECORD_START = Buffer.from('{"type":"');
/** The `type` of every record a session line may start with (entries and the header). */
const RECORD_TYPES: readonly Buffer[] = [...Object.keys(ENTRY_TYPES), "session"].map((type) =>
  Buffer.from(type),
);

/**
 * Whether a record starts inside the line, as when pi's next line was written after a torn one
 * (a crash cut its write; the glued line then ends in `}` like any other, and the indexer reads
 * only its start). Inside a valid JSON string a quote is escaped, so an unescaped `{"type":"`
 * naming an entry type after the line's start is such a record, or an object nested in an
 * extension's data that happens to look like one: either way the caller parses the line to know.
 */
function mayHoldAnotherRecord(buffer: Buffer, start: number, end: number, records: RecordStarts): boolean {
  // The pattern holds no line break, so one found before the line's end is inside the line.
  for (let at = records.next(buffer, start + 1); at >= 0 && at < end; at = records.next(buffer, at + 1)) {
    // Most lines have a nested `{"type":"text"` or two: each is told apart by a few byte reads,
    // with no string made and no search of the line's rest.
    if (isRecordTypeAt(buffer, at + RECORD_START.length, end)) return true;
  }
  return false;
}

/**
 * Where the next `{"type":"` of a buffer is, searched in the whole buffer (a search bounded by
 * the line would need a view of it) and remembered: a search that ran past the line's end (a
 * line with no nested record start) answers the lines up to where it stopped, so no byte is
 * searched twice, whatever the lines look like.
 */
export class RecordStarts {
  private buffer: Buffer | null = null;
  private from = 0;
  private at = -1;

  /** The first record start at or after `from` in `buffer`, or -1. */
  next(buffer: Buffer, from: number): number {
    const known = buffer === this.buffer && from >= this.from && (this.at < 0 || this.at >= from);
    if (!known) {
      this.buffer = buffer;
      this.from = from;
      this.at = buffer.indexOf(RECORD_START, from);
    }
    return this.at;
  }

  /** Forgets what was found: the buffer's bytes are about to change. */
  reset(): void {
    this.buffer = null;
  }
}

/** `lookOfLine`'s: each line is a buffer of its own. */
const LINE_RECORDS = new RecordStarts();

/** The longest record type, and the bytes its closing quote may be found within. */
const LONGEST_TYPE = Math.max(...RECORD_TYPES.map((type) => type.length));

/** Whether a record type and its closing quote are at `start`, before `lineEnd`. */
function isRecordTypeAt(buffer: Buffer, start: number, lineEnd: number): boolean {
  const last = Math.min(lineEnd, start + LONGEST_TYPE + 1);
  let end = start;
  while (end < last && buffer[end] !== QUOTE) end++;
  if (end === last || end === start) return false;
  for (const type of RECORD_TYPES) if (sameBytes(buffer, start, end, type)) return true;
  return false;
}

function parse(buffer: Buffer, start: number, end: number): unknown {
  try {
    return JSON.parse(buffer.toString("utf8", start, end));
  } catch {
    return null;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const CLOSE = 0x7d;
const OPEN = 0x7b;

/**
 * Where the raw value (`"stop"`, `true`) of the last `key` of the line at `start`..`end` of
 * `buffer` starts (no string made), when it is one of the object closed just before the line's
 * last `}`: from the key on, no backslash, only `"key":scalar` pairs, then `}}` ending the line.
 * With no escape there, every quote opens or closes a string, so the key is a real key of that
 * object. -1 for any other line.
 */
function lastFieldAt(buffer: Buffer, start: number, end: number, key: Buffer): number {
  // Looked for near the end only (a backward search of a long line is most of this function's
  // time): a key further back has more than TAIL_WINDOW bytes of fields after it, and such a line
  // is parsed, as any line this function does not answer for.
  // Byte loops, not Buffer searches: the bytes are few, and a search's call costs more than them.
  const at = lastIndexFrom(buffer, key, Math.max(start, end - TAIL_WINDOW), end);
  if (at <= start || (buffer[at - 1] !== COMMA && buffer[at - 1] !== OPEN)) return -1;
  if (indexOfByte(buffer, BACKSLASH, at, end) >= 0) return -1;
  const value = at + key.length;
  let position = scalarEnd(buffer, value, end);
  if (position < 0) return -1;
  while (buffer[position] === COMMA) {
    position = pairEnd(buffer, position + 1, end);
    if (position < 0) return -1;
  }
  return buffer[position] === CLOSE && buffer[position + 1] === CLOSE && position + 2 === end ? value : -1;
}

/** How far from a line's end `lastFieldAt` looks for its key. */
const TAIL_WINDOW = 512;

/** Where the last `key` that starts at or after `from` and ends by `end` is in `buffer`, or -1. */
function lastIndexFrom(buffer: Buffer, key: Buffer, from: number, end: number): number {
  for (let at = end - key.length; at >= from; at--) {
    let i = 0;
    while (i < key.length && buffer[at + i] === key[i]) i++;
    if (i === key.length) return at;
  }
  return -1;
}

/** The first `byte` of `buffer` at or after `from` and before `end`, or -1. */
function indexOfByte(buffer: Buffer, byte: number, from: number, end: number): number {
  for (let i = from; i < end; i++) if (buffer[i] === byte) return i;
  return -1;
}

/** The end of `"key":scalar` at `start`, or -1. */
function pairEnd(buffer: Buffer, start: number, end: number): number {
  if (buffer[start] !== QUOTE) return -1;
  const close = indexOfByte(buffer, QUOTE, start + 1, end);
  if (close < 0 || buffer[close + 1] !== COLON) return -1;
  return scalarEnd(buffer, close + 2, end);
}

/** The end of a string (no escapes: checked by the caller), number, true, false or null at `start`, or -1. */
function scalarEnd(buffer: Buffer, start: number, end: number): number {
  if (buffer[start] === QUOTE) {
    const close = indexOfByte(buffer, QUOTE, start + 1, end);
    return close < 0 ? -1 : close + 1;
  }
  let at = start;
  while (at < end && isScalarByte(buffer[at] as number)) at++;
  return at === start ? -1 : at;
}

/** Bytes of numbers and of true, false, null. */
const SCALAR_BYTES = new Uint8Array(256);
for (const char of "0123456789-+.eEtruefalsn") SCALAR_BYTES[char.charCodeAt(0)] = 1;

function isScalarByte(byte: number): boolean {
  return SCALAR_BYTES[byte] === 1;
}
