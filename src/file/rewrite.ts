import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { fsyncDir } from "./session-file.js";

/**
 * Replaces a file's content atomically and keeps the original: the new content goes to a temp
 * file (fsync), the original is hard-linked to `<file>.<suffix>` (or a numbered variant when that
 * exists), then the temp file is renamed over the original. A crash at any point leaves either the
 * old or the new content at `path`, never a mix, and the old content is always still on disk.
 * Returns the backup's path.
 */
export function replaceKeepingBackup(path: string, content: string | Buffer, suffix: string): string {
  const temp = `${path}.tmp-${process.pid}-${Date.now()}`;
  const fd = openSync(temp, "wx");
  try {
    const data = typeof content === "string" ? Buffer.from(content, "utf8") : content;
    let written = 0;
    while (written < data.length) written += writeSync(fd, data, written, data.length - written);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temp);
    throw error;
  }
  closeSync(fd);
  const backup = freeName(`${path}.${suffix}`);
  linkSync(path, backup);
  renameSync(temp, path);
  fsyncDir(dirname(path));
  return backup;
}

function freeName(base: string): string {
  if (!existsSync(base)) return base;
  for (let i = 1; ; i++) if (!existsSync(`${base}.${i}`)) return `${base}.${i}`;
}
