import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { writeAtomic } from "./write-atomic.js";

/**
 * sessiontree's own cache directory: where the sidecar indexes and the listing catalogs live, so
 * that reading a session never writes into the folder that holds it (often another tool's: pi's,
 * Claude Code's). Everything here is rebuildable: deleting the directory is always safe.
 *
 * - `SESSIONTREE_CACHE_DIR` when set (tests use it);
 * - Linux and other Unixes: `$XDG_CACHE_HOME/sessiontree`, default `~/.cache/sessiontree`;
 * - macOS: `~/Library/Caches/sessiontree`;
 * - Windows: `%LOCALAPPDATA%\sessiontree\Cache`.
 *
 * Files are private (the folders 0700, the files 0600): a catalog holds copies of message text.
 */
export function cacheRoot(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (env.SESSIONTREE_CACHE_DIR) return resolve(env.SESSIONTREE_CACHE_DIR);
  const home = homedir();
  // An empty HOME would make the cache relative, into whatever folder the command runs in.
  if (!isAbsolute(home)) return join(tmpdir(), "sessiontree-cache");
  if (platform === "darwin") return join(home, "Library", "Caches", "sessiontree");
  if (platform === "win32") {
    const local = env.LOCALAPPDATA || join(home, "AppData", "Local");
    return join(local, "sessiontree", "Cache");
  }
  // The XDG spec says a relative XDG_CACHE_HOME is invalid and is to be ignored.
  const xdg = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : undefined;
  return join(xdg ?? join(home, ".cache"), "sessiontree");
}

/** What a cache is about: its own subfolder of the cache root. */
export type CacheArea = "index" | "catalog";

/**
 * The cache path for `subject` (a session file, a session folder) in `area`: named by a hash of
 * its absolute path, so no name from the subject reaches the cache's file names. The name says
 * only which file a cache is for; every cache still checks the file itself by its stamp
 * (file-stamp.ts), so a file replaced at the same path never uses the old one's cache.
 */
export function cachePathFor(area: CacheArea, subject: string, suffix = ""): string {
  const key = createHash("sha256").update(resolve(subject)).digest("hex").slice(0, 40);
  return join(cacheRoot(), area, `${key}${suffix}`);
}

/** Creates `dir` (and the folders above it) private to the user; false when it cannot be made. */
export function ensurePrivateDir(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes a cache file atomically, private to the user, creating its folder. A cache that cannot
 * be written (read-only file system, full disk, no home) is skipped: false, never an error.
 */
export function writeCacheFile(path: string, data: string | Buffer): boolean {
  if (!ensurePrivateDir(dirname(path))) return false;
  try {
    // No fsync: a torn cache fails its own checks and is rebuilt.
    writeAtomic(path, data, { fsync: false, mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}
