import { closeSync, constants, openSync, readSync } from "node:fs";
import { NotFoundError, SessionTreeError } from "../core/errors.js";
import { type DecodedSession, SessionDecoder } from "../format/jsonl/decode.js";

/** How much of a session file is read at once: the memory a read costs beyond what it keeps. */
export const CHUNK = 1 << 20;

/**
 * Reads a session file in 1 MiB chunks: memory is bounded by what is kept, never by the file's
 * size (Node cannot make a string over 512 MB; we never make one). An unterminated last line is
 * reported as a torn tail and is not part of the session.
 */
export function readSessionFile(path: string): DecodedSession {
  const fd = openSync(path, "r");
  try {
    return readFromFd(fd, 0, new SessionDecoder());
  } finally {
    closeSync(fd);
  }
}

/** `readSessionFile`, or null when the file cannot be read (gone, unreadable: a listing skips it). */
export function readSessionFileOrNull(path: string): DecodedSession | null {
  try {
    return readSessionFile(path);
  } catch {
    return null;
  }
}

/** Decodes bytes of an open file from `start` to its end. */
export function readFromFd(fd: number, start: number, decoder: SessionDecoder): DecodedSession {
  const buffer = Buffer.allocUnsafe(CHUNK);
  let position = start;
  for (;;) {
    const n = readSync(fd, buffer, 0, CHUNK, position);
    if (n === 0) break;
    decoder.push(buffer.subarray(0, n));
    position += n;
  }
  return decoder.finish({ tailIsTorn: true });
}

/**
 * A rewrite's read of an open file (repair, migrate): its bytes from the start to its end as they
 * were read, and those bytes decoded. The rewrite compares its result with exactly these bytes,
 * and what a writer without our lock appends after them is carried over (late-lines.ts).
 */
export function readWholeFromFd(fd: number): { bytes: Buffer; decoded: DecodedSession } {
  const bytes = bytesFrom(fd, 0);
  const decoder = new SessionDecoder();
  decoder.push(bytes);
  return { bytes, decoded: decoder.finish({ tailIsTorn: true }) };
}

/** The bytes of an open file from `offset` to its end. */
export function bytesFrom(fd: number, offset: number): Buffer {
  const chunks: Buffer[] = [];
  for (let position = offset; ; ) {
    const chunk = Buffer.allocUnsafe(CHUNK);
    const n = readSync(fd, chunk, 0, CHUNK, position);
    if (n === 0) break;
    chunks.push(chunk.subarray(0, n));
    position += n;
  }
  return Buffer.concat(chunks);
}

/**
 * Opens an existing session file (never creates one), with the errors every caller gives:
 * `session_not_found` when there is none, `io_error` when it cannot be opened.
 */
export function openExisting(path: string, flags: number = constants.O_RDONLY): number {
  try {
    return openSync(path, flags);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new NotFoundError("session_not_found", `No session file at ${path}`, {
        cause: error,
        details: { path },
      });
    }
    throw new SessionTreeError("io_error", `Cannot open ${path}: ${(error as Error).message}`, {
      cause: error,
      details: { path },
    });
  }
}
