import { closeSync, constants, openSync, readSync } from "node:fs";
import { withCurrentFileLocked } from "./locked-current.js";
import { bytesFrom } from "./read-file.js";
import { writeAll } from "./write-all.js";

const NEWLINE = 0x0a;

/**
 * After a rewrite (repair, migrate) renamed its new file in: the lines a writer without our lock
 * (pi, which appends by path with no lock) added to the old file after the rewrite read it, appended
 * to the new file under its lock. Without this they would be in the backup only, out of the
 * session, and the next entry such a writer hangs under them would dangle. Only whole lines come
 * over; a line the rewrite saw cut short and that was finished later stays in the backup (the
 * rewrite already reported it). Returns how many lines came over.
 */
export function carryLateLines(path: string, backup: string, readBytes: number): number {
  const late = fileBytesFrom(backup, readBytes);
  if (late.length === 0) return 0;
  // Bytes that finish a line begun before readBytes belong to a line the rewrite left out.
  const finishesCutLine = readBytes > 0 && !endsLine(backup, readBytes);
  const start = finishesCutLine ? late.indexOf(NEWLINE) + 1 : 0;
  const end = late.lastIndexOf(NEWLINE) + 1;
  if ((finishesCutLine && start === 0) || end <= start) return 0;
  const lines = late.subarray(start, end);
  withCurrentFileLocked(path, (fd) => writeAll(fd, lines), constants.O_WRONLY | constants.O_APPEND);
  let count = 0;
  for (const byte of lines) if (byte === NEWLINE) count++;
  return count;
}

function fileBytesFrom(file: string, offset: number): Buffer {
  const fd = openSync(file, "r");
  try {
    return bytesFrom(fd, offset);
  } finally {
    closeSync(fd);
  }
}

/** Whether the byte before `offset` is a line end (the rewrite read whole lines only). */
function endsLine(file: string, offset: number): boolean {
  const fd = openSync(file, "r");
  try {
    const byte = Buffer.alloc(1);
    return readSync(fd, byte, 0, 1, offset - 1) === 1 && byte[0] === NEWLINE;
  } finally {
    closeSync(fd);
  }
}
