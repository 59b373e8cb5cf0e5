import { ENTRY_TYPES, type EntryType, type SessionEntry } from "../core/entry.js";
import { checkEntry } from "../core/validate.js";
import { KIND } from "../file/sidecar-index-kind.js";
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
const SIDECHAIN_TYPE = "claude-code.sidechain";

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
  if (line[line.length - 1] !== CLOSE) return NEEDS_WHOLE_READ;
  if (mayHoldAnotherRecord(line) && parse(line) === null) return NEEDS_WHOLE_READ;
  const known = lookOfKind(kind);
  if (known !== null) return known;
  if (kind === CUSTOM) return customLook(line);
  return plainMessageLook(line, kind, role) ?? parsedLook(line);
}

/** A custom entry is parsed: a subagent's line is named from the lines around it. */
function customLook(line: Buffer): LookCode {
  const value = parse(line) as { customType?: unknown } | null;
  return value?.customType === SIDECHAIN_TYPE ? NEEDS_WHOLE_READ : look("custom");
}

const STOP_KEY = Buffer.from('"stopReason":');
const IS_ERROR_KEY = Buffer.from('"isError":');

/** Filled by `roleOfLine`, line after line. */
const SPANS = new PrefixSpans();

function roleOfLine(line: Buffer): RoleCode {
  return scanPrefixSpans(line, 0, line.length, SPANS) ? SPANS.role : ROLE.unread;
}

function plainMessageLook(line: Buffer, kind: number, known: RoleCode | null): LookCode | null {
  // The indexer read an assistant's role already (half of a session's lines): not read again.
  const role = kind === KIND.assistant ? ROLE.assistant : (known ?? roleOfLine(line));
  switch (role) {
    case ROLE.unread:
      return null;
    case ROLE.user:
      return look("user");
    case ROLE.assistant: {
      const stop = lastFieldValue(line, STOP_KEY);
      if (stop === null) return null;
      return look(stop === '"error"' || stop === '"aborted"' ? "error" : "assistant");
    }
    case ROLE.toolResult: {
      const failed = lastFieldValue(line, IS_ERROR_KEY);
      if (failed === null) return null;
      return look(failed === "true" ? "error" : "tool");
    }
    default:
      return look("other");
  }
}

function parsedLook(line: Buffer): LookCode {
  const checked = checkEntry(parse(line));
  return checked.ok ? look(entryLook(checked.value as SessionEntry)) : NEEDS_WHOLE_READ;
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
function mayHoldAnotherRecord(line: Buffer): boolean {
  for (let at = line.indexOf(RECORD_START, 1); at >= 0; at = line.indexOf(RECORD_START, at + 1)) {
    // Most lines have a nested `{"type":"text"` or two: each is told apart by a few byte reads,
    // with no string made and no search of the line's rest.
    if (isRecordTypeAt(line, at + RECORD_START.length)) return true;
  }
  return false;
}

/** The longest record type, and the bytes its closing quote may be found within. */
const LONGEST_TYPE = Math.max(...RECORD_TYPES.map((type) => type.length));

/** Whether a record type and its closing quote are at `start`. */
function isRecordTypeAt(line: Buffer, start: number): boolean {
  const last = Math.min(line.length, start + LONGEST_TYPE + 1);
  let end = start;
  while (end < last && line[end] !== QUOTE) end++;
  if (end === last || end === start) return false;
  for (const type of RECORD_TYPES) if (sameBytes(line, start, end, type)) return true;
  return false;
}

function parse(line: Buffer): unknown {
  try {
    return JSON.parse(line.toString("utf8"));
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
 * The raw value (`"stop"`, `true`) of the last `key` of the line when it is one of the object
 * closed just before the line's last `}`: from the key on, no backslash, only `"key":scalar`
 * pairs, then `}}` ending the line. With no escape there, every quote opens or closes a string,
 * so the key is a real key of that object. Null for any other line.
 */
export function lastFieldValue(line: Buffer, key: Buffer): string | null {
  // Looked for near the end only (a backward search of a long line is most of this function's
  // time): a key further back has more than TAIL_WINDOW bytes of fields after it, and such a line
  // is parsed, as any line this function does not answer for.
  // Byte loops, not Buffer searches: the bytes are few, and a search's call costs more than them.
  const at = lastIndexFrom(line, key, Math.max(0, line.length - TAIL_WINDOW));
  if (at <= 0 || (line[at - 1] !== COMMA && line[at - 1] !== OPEN)) return null;
  if (indexOfByte(line, BACKSLASH, at) >= 0) return null;
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

/** Where the last `key` that starts at or after `from` is in `line`, or -1. */
function lastIndexFrom(line: Buffer, key: Buffer, from: number): number {
  for (let at = line.length - key.length; at >= from; at--) {
    let i = 0;
    while (i < key.length && line[at + i] === key[i]) i++;
    if (i === key.length) return at;
  }
  return -1;
}

/** The first `byte` of `line` at or after `from`, or -1. */
function indexOfByte(line: Buffer, byte: number, from: number): number {
  for (let i = from; i < line.length; i++) if (line[i] === byte) return i;
  return -1;
}

/** The end of `"key":scalar` at `start`, or -1. */
function pairEnd(line: Buffer, start: number): number {
  if (line[start] !== QUOTE) return -1;
  const close = indexOfByte(line, QUOTE, start + 1);
  if (close < 0 || line[close + 1] !== COLON) return -1;
  return scalarEnd(line, close + 2);
}

/** The end of a string (no escapes: checked by the caller), number, true, false or null at `start`, or -1. */
function scalarEnd(line: Buffer, start: number): number {
  if (line[start] === QUOTE) {
    const close = indexOfByte(line, QUOTE, start + 1);
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
