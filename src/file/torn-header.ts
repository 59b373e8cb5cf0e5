import { closeSync, openSync, readSync } from "node:fs";
import { readLineRecords } from "../format/jsonl/line-records.js";

/** How every session header starts, as pi and this project write it. */
const HEADER_START = '{"type":"session"';
/** A header is a few hundred bytes; a file larger than this is not one cut short. */
const LARGEST = 64 * 1024;

/**
 * The bytes of a session file that holds nothing but the start of a header: the first write of
 * a session cut short (a crash while pi or another tool wrote it), so no entry ever reached the
 * file. pi opens such a file as a new session and overwrites it; the session manager starts a new
 * session in it too, and its first write moves these bytes aside (quarantine.ts) before writing,
 * so nothing is thrown away. Null for anything else: an empty file, a whole header, other text.
 */
export function tornHeaderOf(path: string, size: number): Buffer | null {
  if (size === 0 || size > LARGEST) return null;
  const bytes = Buffer.alloc(size);
  const fd = openSync(path, "r");
  try {
    if (readSync(fd, bytes, 0, size, 0) !== size) return null;
  } finally {
    closeSync(fd);
  }
  if (bytes.includes(10)) return null;
  const text = bytes.toString("utf8");
  if (!HEADER_START.startsWith(text) && !text.startsWith(HEADER_START)) return null;
  // A whole record in it (the header, with or without more glued after it) is not a header cut
  // short: the decoder reads such a line, or refuses it.
  return readLineRecords({ bytes, line: 1, offset: 0 }, () => {}).length > 0 ? null : bytes;
}
