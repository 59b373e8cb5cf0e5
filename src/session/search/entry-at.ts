import { closeSync, openSync, readSync } from "node:fs";
import { CURRENT_SESSION_VERSION, type SessionEntry } from "../../core/entry.js";
import { readSessionFile } from "../../file/read-file.js";
import { SessionDecoder } from "../../format/jsonl/decode.js";

const CHUNK = 64 * 1024;

/**
 * The entry `entryId` of a session file, read again from its line (found by the index): the line is
 * decoded by the format layer's decoder, so records glued on one line are split as on any read. A
 * file in an older format is read whole (its entries are migrated in memory, which needs the lines
 * before). Null when the entry is not there any more (the file changed since it was indexed).
 */
export function readEntryAt(
  path: string,
  place: { line: number; offset: number; entryId: string; version: number },
): SessionEntry | null {
  try {
    if (place.version < CURRENT_SESSION_VERSION) {
      return readSessionFile(path).entries.find((e) => e.entry.id === place.entryId)?.entry ?? null;
    }
    const decoder = new SessionDecoder({ line: place.line - 1, offset: place.offset });
    decoder.push(readLine(path, place.offset));
    return (
      decoder.finish({ tailIsTorn: true }).entries.find((e) => e.entry.id === place.entryId)?.entry ?? null
    );
  } catch {
    return null;
  }
}

/** The bytes of the line that starts at `offset`, its newline included (none at the end of the file). */
function readLine(path: string, offset: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const parts: Buffer[] = [];
    let position = offset;
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK);
      const n = readSync(fd, chunk, 0, CHUNK, position);
      if (n === 0) break;
      const newline = chunk.subarray(0, n).indexOf(10);
      if (newline >= 0) {
        parts.push(chunk.subarray(0, newline + 1));
        break;
      }
      parts.push(chunk.subarray(0, n));
      position += n;
    }
    return Buffer.concat(parts);
  } finally {
    closeSync(fd);
  }
}
