/**
 * Splits bytes into lines and keeps each line's number and byte offset, so every report can point
 * at the exact place in the file. Works chunk by chunk: a file of any size streams through it.
 */
export interface RawLine {
  /** The line's bytes without the newline (and without a trailing CR). */
  bytes: Buffer;
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte in the file. */
  offset: number;
}

export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingLength = 0;
  private lineNo: number;
  private offset: number;

  /** `start` resumes numbering mid-file, for a reader catching up on lines appended later. */
  constructor(
    private readonly onLine: (line: RawLine) => void,
    start: { line: number; offset: number } = { line: 0, offset: 0 },
  ) {
    this.lineNo = start.line;
    this.offset = start.offset;
  }

  /** Lines completed so far (the last line number). */
  get completeLines(): number {
    return this.lineNo;
  }

  /** Bytes consumed as complete lines so far: where an unterminated tail starts. */
  get completeBytes(): number {
    return this.offset;
  }

  /** Whether bytes of an unfinished line are waiting for the next chunk. */
  get hasPending(): boolean {
    return this.pendingLength > 0;
  }

  /**
   * Counts a complete line its caller split itself (`consumed` bytes, newline included), for a
   * reader that splits whole chunks faster than line by line: numbering and offsets stay this
   * splitter's. Only between chunks with nothing pending.
   */
  countLine(consumed: number): void {
    this.lineNo++;
    this.offset += consumed;
  }

  push(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(10, start);
    while (newline !== -1) {
      const piece = chunk.subarray(start, newline);
      const bytes = this.pendingLength > 0 ? this.takePending(piece) : piece;
      this.emit(bytes, bytes.length + 1);
      start = newline + 1;
      newline = chunk.indexOf(10, start);
    }
    if (start < chunk.length) {
      // Copy: callers reuse their read buffers.
      const rest = Buffer.from(chunk.subarray(start));
      this.pending.push(rest);
      this.pendingLength += rest.length;
    }
  }

  /** The bytes after the last newline (a torn or not-yet-written line), or null when there are none. */
  tail(): { bytes: Buffer; line: number; offset: number } | null {
    if (this.pendingLength === 0) return null;
    return {
      bytes: Buffer.concat(this.pending, this.pendingLength),
      line: this.lineNo + 1,
      offset: this.offset,
    };
  }

  private takePending(piece: Buffer): Buffer {
    const joined = Buffer.concat([...this.pending, piece], this.pendingLength + piece.length);
    this.pending = [];
    this.pendingLength = 0;
    return joined;
  }

  private emit(bytes: Buffer, consumed: number): void {
    this.lineNo++;
    const trimmed =
      bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.subarray(0, bytes.length - 1) : bytes;
    this.onLine({ bytes: trimmed, line: this.lineNo, offset: this.offset });
    this.offset += consumed;
  }
}

/**
 * True when the bytes are only spaces, tabs and CRs, after a byte order mark if they start with one
 * (a blank line, which carries nothing). A BOM alone is blank: a Windows tool that starts a file
 * with an empty line in "UTF-8 with BOM" writes `EF BB BF 0D 0A` before the header, and pi (which
 * trims the text and each line, BOM included) reads the session under the next line.
 */
export function isBlank(bytes: Buffer): boolean {
  for (let i = bomLength(bytes); i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte !== 32 && byte !== 9 && byte !== 13) return false;
  }
  return true;
}

/** 3 when `bytes` start with a UTF-8 byte order mark, else 0: a BOM is not part of the text. */
export function bomLength(bytes: Buffer): number {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
}

/** A message role as `PrefixSpans` gives it, with no string made. */
export const ROLE = { unread: 0, user: 1, assistant: 2, toolResult: 3, other: 4 } as const;
export type RoleCode = (typeof ROLE)[keyof typeof ROLE];

/**
 * Where `scanPrefixSpans` found an entry line's `type`, `id` and `parentId` (byte positions in
 * the buffer, quotes excluded; the parent's are -1 for `null`), and the role it read. One object
 * is filled line after line: the indexer's scan makes no object or string per line.
 */
export class PrefixSpans {
  typeStart = 0;
  typeEnd = 0;
  idStart = 0;
  idEnd = 0;
  parentStart = -1;
  parentEnd = -1;
  role: RoleCode = ROLE.unread;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const TYPE_KEY = Buffer.from('{"type":');
const ID_KEY = Buffer.from(',"id":');
const PARENT_KEY = Buffer.from(',"parentId":');
const NULL_WORD = Buffer.from("null");
const TIMESTAMP_KEY = Buffer.from(',"timestamp":');
const ROLE_KEY = Buffer.from(',"message":{"role":');
const MESSAGE_TYPE = Buffer.from("message");
const SESSION_TYPE = Buffer.from("session");
const USER_ROLE = Buffer.from("user");
const ASSISTANT_ROLE = Buffer.from("assistant");
const TOOL_RESULT_ROLE = Buffer.from("toolResult");

/**
 * Reads `type`, `id` and `parentId` of the line at bytes `start`–`end` of `buffer` when it starts
 * the way pi and sessiontree write entries (`{"type":…,"id":…,"parentId":…`), in a fraction of a
 * JSON.parse, into `spans` (and a message's role, when `message` follows `timestamp`). False for
 * any other shape, or when a value holds an escape or non-ASCII byte (then `spans` is partly
 * overwritten): the caller then parses the line. It does not prove the rest of the line is valid
 * JSON; whoever uses the entry's content parses it then.
 */
export function scanPrefixSpans(buffer: Buffer, start: number, end: number, spans: PrefixSpans): boolean {
  if (!startsWithAt(buffer, start, end, TYPE_KEY)) return false;
  const typeStart = start + TYPE_KEY.length + 1;
  const typeEnd = plainStringEnd(buffer, typeStart - 1, end);
  // An empty type and the header's are not entries.
  if (typeEnd <= typeStart || sameBytes(buffer, typeStart, typeEnd, SESSION_TYPE)) return false;
  if (!startsWithAt(buffer, typeEnd + 1, end, ID_KEY)) return false;
  const idStart = typeEnd + 1 + ID_KEY.length + 1;
  const idEnd = plainStringEnd(buffer, idStart - 1, end);
  if (idEnd <= idStart) return false;
  if (!startsWithAt(buffer, idEnd + 1, end, PARENT_KEY)) return false;
  let position = idEnd + 1 + PARENT_KEY.length;
  if (startsWithAt(buffer, position, end, NULL_WORD)) {
    spans.parentStart = -1;
    spans.parentEnd = -1;
    position += NULL_WORD.length;
  } else {
    const parentEnd = plainStringEnd(buffer, position, end);
    if (parentEnd < 0) return false;
    spans.parentStart = position + 1;
    spans.parentEnd = parentEnd;
    position = parentEnd + 1;
  }
  spans.typeStart = typeStart;
  spans.typeEnd = typeEnd;
  spans.idStart = idStart;
  spans.idEnd = idEnd;
  readRole(buffer, position, end, spans);
  return true;
}

/** The role of a `message` line whose `message` follows `timestamp`; `ROLE.unread` otherwise. */
function readRole(buffer: Buffer, position: number, end: number, spans: PrefixSpans): void {
  spans.role = ROLE.unread;
  if (!sameBytes(buffer, spans.typeStart, spans.typeEnd, MESSAGE_TYPE)) return;
  if (!startsWithAt(buffer, position, end, TIMESTAMP_KEY)) return;
  const timestampEnd = plainStringEnd(buffer, position + TIMESTAMP_KEY.length, end);
  if (timestampEnd < 0 || !startsWithAt(buffer, timestampEnd + 1, end, ROLE_KEY)) return;
  const roleStart = timestampEnd + 1 + ROLE_KEY.length + 1;
  const roleEnd = plainStringEnd(buffer, roleStart - 1, end);
  if (roleEnd >= 0) spans.role = roleCode(buffer, roleStart, roleEnd);
}

function roleCode(buffer: Buffer, start: number, end: number): RoleCode {
  if (sameBytes(buffer, start, end, USER_ROLE)) return ROLE.user;
  if (sameBytes(buffer, start, end, ASSISTANT_ROLE)) return ROLE.assistant;
  if (sameBytes(buffer, start, end, TOOL_RESULT_ROLE)) return ROLE.toolResult;
  return ROLE.other;
}

function startsWithAt(buffer: Buffer, position: number, end: number, literal: Buffer): boolean {
  if (position + literal.length > end) return false;
  for (let i = 0; i < literal.length; i++) if (buffer[position + i] !== literal[i]) return false;
  return true;
}

/** Whether bytes `start`–`end` of `buffer` are `literal`. */
export function sameBytes(buffer: Buffer, start: number, end: number, literal: Buffer): boolean {
  return end - start === literal.length && startsWithAt(buffer, start, end, literal);
}

/**
 * The position of the closing quote of a JSON string at `open` made of plain ASCII (no escape,
 * no control or non-ASCII byte) that closes before `end`; -1 for any other.
 */
function plainStringEnd(buffer: Buffer, open: number, end: number): number {
  if (open >= end || buffer[open] !== QUOTE) return -1;
  for (let i = open + 1; i < end; i++) {
    const byte = buffer[i] as number;
    if (byte === QUOTE) return i;
    if (byte === BACKSLASH || byte >= 0x80 || byte < 0x20) return -1;
  }
  return -1;
}
