import { isSessionTreeError } from "../../core/errors.js";
import { SessionFile, type SessionFileOptions } from "../../file/session-file.js";

/**
 * Session files kept open, least recently used first, so an append does not re-read its file (the
 * file layer catches up with other writers' lines under the lock instead).
 */
export class OpenFiles {
  private readonly files = new Map<string, SessionFile>();

  constructor(
    private readonly capacity: number,
    private readonly options: SessionFileOptions,
  ) {}

  /** The session file at `path`, opened if need be; null when there is none. */
  open(path: string): SessionFile | null {
    const cached = this.files.get(path);
    if (cached) {
      this.files.delete(path);
      this.files.set(path, cached);
      return cached;
    }
    let file: SessionFile;
    try {
      file = SessionFile.open(path, this.options);
    } catch (error) {
      if (isSessionTreeError(error, "session_not_found")) return null;
      throw error;
    }
    this.remember(path, file);
    return file;
  }

  /** Keeps `file` open, closing the least recently used beyond the capacity. */
  remember(path: string, file: SessionFile): void {
    this.files.set(path, file);
    for (const [oldest, old] of this.files) {
      if (this.files.size <= this.capacity) break;
      old.close();
      this.files.delete(oldest);
    }
  }

  /** Closes the file: the next use reads it afresh. */
  forget(path: string): void {
    this.files.get(path)?.close();
    this.files.delete(path);
  }

  closeAll(): void {
    for (const file of this.files.values()) file.close();
    this.files.clear();
  }
}
