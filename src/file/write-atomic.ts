import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import { writeAll } from "./write-all.js";

export interface WriteAtomicOptions {
  /**
   * Flush the content, then the rename, to the disk, so that the new content survives power loss.
   * Caches turn it off: a cache torn by a power cut is found invalid and rebuilt, and listing or
   * resuming should not wait for the disk.
   * @default true
   */
  fsync?: boolean;
  /** Permission bits of the file (the umask applies). @default 0o666 */
  mode?: number;
  /** Create the parent folder first when it is missing. @default false */
  createDir?: boolean;
}

/**
 * Replaces `path` with `data` atomically: the data goes to a temp file beside it, which is renamed
 * over `path`. A reader, or a crash at any point, sees the old content or the new, never a mix;
 * a failed write leaves the old content and no temp file. Meant for cold paths (a few syscalls and,
 * by default, two fsyncs), never for appends.
 */
export function writeAtomic(path: string, data: string | Buffer, options: WriteAtomicOptions = {}): void {
  const fsync = options.fsync ?? true;
  if (options.createDir) mkdirSync(dirname(path), { recursive: true });
  // Unique per call: two threads of one process (same pid) may replace the same file at once.
  const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  const fd = openSync(temp, "wx", options.mode ?? 0o666);
  try {
    writeAll(fd, data);
    if (fsync) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    removeQuietly(temp);
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (error) {
    removeQuietly(temp);
    throw error;
  }
  if (fsync) fsyncDir(dirname(path));
}

/** Makes a new directory entry durable (a file's creation or a rename into `dir`). */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone; nothing else to undo.
  }
}
