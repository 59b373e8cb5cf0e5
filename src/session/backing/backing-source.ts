import { join } from "node:path";
import type { SessionEntry, SessionHeader } from "../../core/entry.js";
import { sessionFileName } from "../../file/paths.js";
import type { SessionBacking } from "./backing.js";
import { FileBacking, type FileBackingOptions } from "./file-backing.js";
import { IndexedBacking } from "./indexed-backing.js";
import { MemoryBacking } from "./memory-backing.js";

/**
 * How a manager opens the backing of each session it switches to: in memory for
 * `SessionManager.inMemory`, in files for every other manager. The manager picks one at
 * construction and never asks which again.
 */
export interface BackingSource {
  /** An existing, non-empty session file. */
  open(path: string, size: number): SessionBacking;
  /**
   * A new, empty session; `path` when given, else a new file name in the session folder.
   * `replacing`: the bytes of a header cut short that `path` holds (torn-header.ts).
   */
  fresh(header: SessionHeader, path?: string, replacing?: Buffer): SessionBacking;
  /** A new session holding `entries` (a branch of `previousPath`'s session), written at once. */
  holding(header: SessionHeader, entries: readonly SessionEntry[], previousPath?: string): SessionBacking;
}

/** Sessions kept in memory; a file given to one is read into memory and never written (as in pi). */
export const memorySource: BackingSource = {
  open: (path) => MemoryBacking.fromFile(path),
  fresh: (header, path) => new MemoryBacking(header, undefined, path),
  holding: (header, entries, previousPath) => MemoryBacking.holding(header, entries, previousPath),
};

/**
 * Session files in `sessionDir`; a large one is opened through its sidecar index, unless the
 * caller will read it whole anyway (`whole`: the index would only be a second read).
 */
export function fileSource(
  sessionDir: string,
  options: FileBackingOptions & { open?: "resume" | "whole" },
): BackingSource {
  const newPath = (header: SessionHeader) => join(sessionDir, sessionFileName(header.timestamp, header.id));
  const indexed = (path: string, size: number) =>
    options.open === "whole" ? null : IndexedBacking.open(path, size, options);
  return {
    open: (path, size) => indexed(path, size) ?? FileBacking.open(path, options),
    fresh: (header, path, replacing) =>
      FileBacking.unwritten(path ?? newPath(header), header, options, replacing),
    holding: (header, entries) => FileBacking.create(newPath(header), header, entries, options),
  };
}
