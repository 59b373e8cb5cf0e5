import { closeSync, constants, copyFileSync, existsSync, fsyncSync, openSync, unlinkSync } from "node:fs";
import { ReplacedMark } from "./replaced-mark.js";
import { writeAtomic } from "./write-atomic.js";

/**
 * Replaces a file's content atomically (`writeAtomic`, with fsync) and keeps the original: it is
 * first copied to `<file>.<suffix>` (or a numbered variant when that exists) and flushed, so the
 * old bytes are on disk under the backup's name before the new ones take the file's. A crash at
 * any point leaves either the old or the new content at `path`, never a mix, and the old content
 * is always still on disk. A copy, not a hard link: the replaced file is then left with no name,
 * and is marked for the writers that still hold it open (replaced-mark.ts). Meant to run under
 * the file's lock. Returns the backup's path.
 */
export function replaceKeepingBackup(path: string, content: string | Buffer, suffix: string): string {
  const backup = freeName(`${path}.${suffix}`);
  copyFileSync(path, backup, constants.COPYFILE_EXCL);
  const mark = ReplacedMark.before(path);
  try {
    flush(backup);
    writeAtomic(path, content);
  } catch (error) {
    // Nothing was replaced: the backup would only be a second copy of the unchanged file.
    mark.cancel();
    unlinkSync(backup);
    throw error;
  }
  mark.replaced();
  return backup;
}

function flush(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function freeName(base: string): string {
  if (!existsSync(base)) return base;
  for (let i = 1; ; i++) if (!existsSync(`${base}.${i}`)) return `${base}.${i}`;
}
