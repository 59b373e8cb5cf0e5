import { closeSync, openSync, readSync } from "node:fs";
import { type DecodedSession, SessionDecoder } from "../format/jsonl/decode.js";

const CHUNK = 1 << 20;

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
