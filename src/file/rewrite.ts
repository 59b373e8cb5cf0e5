import { existsSync, linkSync, unlinkSync } from "node:fs";
import { writeAtomic } from "./write-atomic.js";

/**
 * Replaces a file's content atomically (`writeAtomic`, with fsync) and keeps the original: it is
 * first hard-linked to `<file>.<suffix>` (or a numbered variant when that exists), so the old
 * bytes are on disk under the backup's name before the new ones take the file's. A crash at any
 * point leaves either the old or the new content at `path`, never a mix, and the old content is
 * always still on disk. Returns the backup's path.
 */
export function replaceKeepingBackup(path: string, content: string | Buffer, suffix: string): string {
  const backup = freeName(`${path}.${suffix}`);
  linkSync(path, backup);
  try {
    writeAtomic(path, content);
  } catch (error) {
    // Nothing was replaced: the backup would only be a second name for the unchanged file.
    unlinkSync(backup);
    throw error;
  }
  return backup;
}

function freeName(base: string): string {
  if (!existsSync(base)) return base;
  for (let i = 1; ; i++) if (!existsSync(`${base}.${i}`)) return `${base}.${i}`;
}
