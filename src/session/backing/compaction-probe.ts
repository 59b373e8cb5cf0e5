import { closeSync, openSync, readSync } from "node:fs";

/** How a compaction line starts, as pi and sessiontree write entries (`JSON.stringify`, no spaces). */
const COMPACTION = Buffer.from('"type":"compaction"');
/** Small: each fresh page a buffer touches costs a page fault, more than the extra reads cost. */
export const PROBE_CHUNK = 1 << 16;

/**
 * Whether the file may hold a compaction: false only when the bytes `"type":"compaction"` occur
 * nowhere in it. Inside a JSON string those quotes would be escaped, so the bytes are found for
 * every compaction line we or pi write; they may also be found where there is none (a nested
 * object of a message), and a file written with spaces after the colons is not recognised. Both
 * only choose the slower of two ways to the same answer (see `IndexedBacking.open`), so the probe
 * is a byte search at memory speed, stopping at the first hit (within the first few MiB of a
 * compacted session).
 */
export function mayHoldCompaction(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(PROBE_CHUNK + COMPACTION.length);
    // The last bytes of each chunk are kept in front of the next: a match may straddle chunks.
    let kept = 0;
    for (let position = 0; ; ) {
      const n = readSync(fd, buffer, kept, PROBE_CHUNK, position);
      if (n === 0) return false;
      const filled = kept + n;
      if (buffer.subarray(0, filled).indexOf(COMPACTION) !== -1) return true;
      position += n;
      kept = Math.min(COMPACTION.length - 1, filled);
      buffer.copy(buffer, 0, filled - kept, filled);
    }
  } finally {
    closeSync(fd);
  }
}
