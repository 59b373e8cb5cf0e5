import { existsSync, linkSync, statSync, unlinkSync } from "node:fs";
import { appendChecks } from "./session-append.js";
import { writeAtomic } from "./write-atomic.js";

/**
 * Replaces a file's content atomically (`writeAtomic`, with fsync) and keeps the original: it is
 * first hard-linked to `<file>.<suffix>` (or a numbered variant when that exists), so the old
 * bytes are on disk under the backup's name before the new ones take the file's, and a line a
 * writer without the lock (pi) appends to the old file meanwhile is in the backup too. A crash at
 * any point leaves either the old or the new content at `path`, never a mix, and the old content
 * is always still on disk. Returns the backup's path.
 *
 * Runs under the old file's lock (repair, migrate), and keeps it a little longer than a writer
 * trusts its last look at the path (`appendChecks.pathHoldsMs`, session-append.ts): a writer that
 * appends next either waited for the lock or finds that look too old, and either way asks the
 * path and re-reads the new file instead of appending to the backup.
 */
export function replaceKeepingBackup(path: string, content: string | Buffer, suffix: string): string {
  const backup = freeName(`${path}.${suffix}`);
  linkSync(path, backup);
  try {
    writeAtomic(path, content);
  } catch (error) {
    // Failed after the rename (the folder's fsync): the original lives on only as the backup.
    if (renamedIn(path, backup)) holdFor(2 * appendChecks.pathHoldsMs);
    // Nothing was replaced: the backup would only be a second name for the unchanged file.
    else unlinkSync(backup);
    throw error;
  }
  holdFor(2 * appendChecks.pathHoldsMs);
  return backup;
}

/** Whether the new file took the path (a failure after the rename, say the folder's fsync). */
function renamedIn(path: string, backup: string): boolean {
  try {
    return statSync(path).ino !== statSync(backup).ino;
  } catch {
    return false;
  }
}

function holdFor(ms: number): void {
  if (ms > 0 && Number.isFinite(ms)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function freeName(base: string): string {
  if (!existsSync(base)) return base;
  for (let i = 1; ; i++) if (!existsSync(`${base}.${i}`)) return `${base}.${i}`;
}
