import { fstatSync } from "node:fs";
import { checkStamp } from "./file-stamp.js";
import { IndexBuilder, NotIndexable, scanInto } from "./sidecar-index-builder.js";
import { loadCachedIndex, saveCachedIndex } from "./sidecar-index-cache.js";
import type { SessionIndex } from "./sidecar-index-model.js";

export { dropCachedIndex, indexPathFor, loadCachedIndex } from "./sidecar-index-cache.js";

/**
 * A rebuildable sidecar index of a session file: for every entry its id, parent, kind, line
 * number, byte offset and length, plus the leaf (sidecar-index-model.ts). It is kept in
 * sessiontree's cache directory (sidecar-index-cache.ts), never beside the session, which may be
 * in another tool's folder. With it, a resume reads only the lines the leaf's context needs, with
 * positioned reads, instead of the whole file (indexed-reader.ts).
 *
 * The index is a cache and is never trusted over the file: it is used only when its stamp
 * (file-stamp.ts: inode, size, mtime, hashes of the header line and of the last indexed line)
 * says the file is unchanged; a file that grew is indexed from where the index ends; any other
 * change (shrunk, same size with a new mtime, replaced) rebuilds it; and every line read through it
 * must carry the id, parent and kind the index says, or the reader falls back to a full read.
 */

/** How the index was found: as saved, extended over appended lines, built anew; "none": not used. */
export type IndexState = "warm" | "caught-up" | "rebuilt" | "none";

/**
 * The index of the open file `fd`, checked against it: reused when unchanged, extended when lines
 * were appended, rebuilt otherwise (and saved). Null for files it does not index (v1/v2 formats,
 * no readable header): those are read whole.
 */
export function currentIndex(
  sessionPath: string,
  fd: number,
): { index: SessionIndex; state: IndexState } | null {
  const stats = fstatSync(fd);
  const saved = loadCachedIndex(sessionPath);
  try {
    const found = saved ? checkStamp(saved.stamp, fd, stats, { verifyUnchanged: true }) : "replaced";
    if (saved && found === "unchanged") return { index: saved, state: "warm" };
    if (saved && found === "grew") {
      const start = { line: saved.indexedLines, offset: saved.indexedBytes };
      const index = scanInto(IndexBuilder.continuing(saved), fd, stats, start);
      saveCachedIndex(sessionPath, index);
      return { index, state: "caught-up" };
    }
    return { index: rebuildIndex(sessionPath, fd), state: "rebuilt" };
  } catch (error) {
    if (error instanceof NotIndexable) return null;
    throw error;
  }
}

/**
 * Indexes the open file `fd` from scratch and saves the index. Throws `NotIndexable` for files it
 * does not index.
 */
export function rebuildIndex(sessionPath: string, fd: number): SessionIndex {
  const index = scanInto(new IndexBuilder(), fd, fstatSync(fd));
  saveCachedIndex(sessionPath, index);
  return index;
}
