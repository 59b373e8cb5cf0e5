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
