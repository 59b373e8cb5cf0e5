import { closeSync, constants, fstatSync, openSync, writeSync } from "node:fs";

/**
 * How a file replaced under its lock tells the writers that still hold it open. A repair or a
 * migration renames a new file over the session's path while it holds the old file's lock, and a
 * writer waiting for that lock then holds a file that no path names. Under the lock a writer looks
 * only at the size of the file it holds (session-append.ts: `lseek`, not a stat of the path), so
 * the replacer grows the old file by one newline once no name is left for it: its size is then not
 * what any writer left, and the writer asks the path, finds the new file, and re-reads it.
 *
 * The old bytes are not changed (a reader in the middle of them reads them all, then a blank
 * line); a file that still has a name (the user linked it somewhere) is not touched at all.
 */
export class ReplacedMark {
  private constructor(private readonly fd: number | null) {}

  /** Opens the file at `path`, about to be replaced; a file we may not write is left unmarked. */
  static before(path: string): ReplacedMark {
    try {
      return new ReplacedMark(openSync(path, constants.O_WRONLY | constants.O_APPEND));
    } catch {
      // Writers still see the replacement when they next look at the path (appendChecks).
      return new ReplacedMark(null);
    }
  }

  /** The new file took the path: mark the old one if nothing names it any more. */
  replaced(): void {
    if (this.fd === null) return;
    try {
      if (fstatSync(this.fd).nlink === 0) writeSync(this.fd, "\n");
    } finally {
      closeSync(this.fd);
    }
  }

  /** Nothing was replaced. */
  cancel(): void {
    if (this.fd !== null) closeSync(this.fd);
  }
}
