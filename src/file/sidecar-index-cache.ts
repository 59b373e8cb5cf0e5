import { unlinkSync } from "node:fs";
import { dirname } from "node:path";
import { cachePathFor, ensurePrivateDir } from "./cache-dir.js";
import { loadIndex, saveIndex } from "./sidecar-index-codec.js";
import type { SessionIndex } from "./sidecar-index-model.js";

/**
 * Where a session's sidecar index is kept: in sessiontree's cache directory (cache-dir.ts), never
 * beside the session, so resuming or showing a session writes nothing into its folder (pi's own,
 * say). An old `<file>.idx` left beside a session by earlier versions is not read.
 */
const INDEX_SUFFIX = ".idx";

/** The index file of `sessionPath`: `<cache>/index/<hash of the absolute path>.idx`. */
export function indexPathFor(sessionPath: string): string {
  return cachePathFor("index", sessionPath, INDEX_SUFFIX);
}

/** The saved index of `sessionPath`, or null when there is none or it does not load. */
export function loadCachedIndex(sessionPath: string): SessionIndex | null {
  return loadIndex(indexPathFor(sessionPath));
}

/** Saves the index; false when the cache cannot be written (nothing depends on it). */
export function saveCachedIndex(sessionPath: string, index: SessionIndex): boolean {
  const path = indexPathFor(sessionPath);
  if (!ensurePrivateDir(dirname(path))) return false;
  return saveIndex(path, index);
}

/** Forgets the index of a session that is gone. */
export function dropCachedIndex(sessionPath: string): void {
  try {
    unlinkSync(indexPathFor(sessionPath));
  } catch {
    // Never made, or already gone.
  }
}
