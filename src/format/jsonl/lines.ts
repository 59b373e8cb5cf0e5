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

/** True when the bytes are only spaces, tabs and CRs (a blank line, which carries nothing). */
export function isBlank(bytes: Buffer): boolean {
  for (const byte of bytes) {
    if (byte !== 32 && byte !== 9 && byte !== 13) return false;
  }
  return true;
}

/** What `scanEntryPrefix` reads from the start of an entry line without parsing it. */
export interface EntryPrefix {
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
export function scanEntryPrefix(line: Buffer): EntryPrefix | null {
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
