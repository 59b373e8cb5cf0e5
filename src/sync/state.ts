import { createHash } from "node:crypto";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SessionTreeError } from "../core/errors.js";
import { cacheRoot, ensurePrivateDir, writeCacheFile } from "../file/cache-dir.js";
import { tryExclusiveLock } from "../file/flock.js";
import type { SyncMark } from "../format/sync-digest.js";

/**
 * What one sync left behind for one session: the watermarks of the next one. Every field only
 * ever lets the next sync skip work it has already done; each is saved after the service
 * acknowledged what it covers, so a crash in between means sending or reading again (appends are
 * idempotent by entry id), never a loss.
 */
export interface SessionSyncState {
  /** The local file, and its stamp when this state was saved (unchanged stamp: nothing new locally). */
  path: string;
  ino: number;
  size: number;
  mtimeMs: number;
  /** The first `stored` entries of the file, in file order, are on the service (or cannot go there). */
  stored: number;
  /** Entries up to this storage position on the service are in the local file. */
  after: number;
  /** The service's revision and entry count this copy holds everything of (0: not on the service yet). */
  revision: number;
  entryCount: number;
  /** Deleted on the service: kept here, never pushed back. */
  gone?: boolean;
}

export interface SyncStateFile {
  version: 1;
  server: string;
  sessions: Record<string, SessionSyncState>;
}

/**
 * Where the state of syncing `root` with `server` as `credentialId` lives: the private cache
 * directory (file/cache-dir.ts), named by a hash of the three. Deleting it is safe: the next sync
 * compares every session in full (reads the service's entries again, sends none it already has).
 */
export function syncStatePath(root: string, server: string, credentialId: string): string {
  const key = createHash("sha256")
    .update(`${resolve(root)}\n${server}\n${credentialId}`)
    .digest("hex")
    .slice(0, 40);
  return join(cacheRoot(), "sync", `${key}.json`);
}

/** The saved state, or an empty one when there is none or it does not read (a full comparison). */
export function loadSyncState(path: string, server: string): SyncStateFile {
  const empty: SyncStateFile = { version: 1, server, sessions: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return empty;
  }
  const state = parsed as Partial<SyncStateFile> | null;
  if (
    state?.version !== 1 ||
    state.server !== server ||
    !state.sessions ||
    typeof state.sessions !== "object"
  )
    return empty;
  return { version: 1, server, sessions: state.sessions };
}

/** Saves atomically (a torn state file reads as none); false when the cache cannot be written. */
export function saveSyncState(path: string, state: SyncStateFile): boolean {
  return writeCacheFile(path, JSON.stringify(state));
}

/** The marks of the sessions this copy holds everything of, for the service's digest. */
export function knownMarks(state: SyncStateFile): SyncMark[] {
  return Object.entries(state.sessions)
    .filter(([, session]) => !session.gone && session.revision > 0)
    .map(([id, session]) => ({ id, revision: session.revision, entryCount: session.entryCount }));
}

/**
 * Holds `<state>.lock` for one sync: two syncs of one root with one service at once would each
 * save a state the other's work does not match. The kernel drops the lock if the process dies.
 */
export function lockSyncState(path: string): () => void {
  const lockPath = `${path}.lock`;
  const dir = resolve(lockPath, "..");
  if (!ensurePrivateDir(dir))
    throw new SessionTreeError("io_error", `Cannot create the sync state folder ${dir}`);
  const fd = openSync(lockPath, "a", 0o600);
  if (!tryExclusiveLock(fd)) {
    closeSync(fd);
    throw new SessionTreeError("conflict", "Another sync of this root with this service is running");
  }
  return () => closeSync(fd);
}
