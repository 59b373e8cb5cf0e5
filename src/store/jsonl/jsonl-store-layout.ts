import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { SessionHeader } from "../../core/entry.js";
import { SessionTreeError } from "../../core/errors.js";
import { type SizeStamp, statMatches } from "../../file/file-stamp.js";
import { writeAtomic } from "../../file/write-atomic.js";
import type { SessionSummary } from "../store.js";
import type { DerivedFields } from "../summary.js";

/**
 * Where the JSONL store keeps things:
 *
 *   <root>/owners/<sha256(owner)>/sessions/<session id>.jsonl       the session, pi v3 format
 *   <root>/owners/<sha256(owner)>/sessions/<session id>.meta.json   revision, soft delete, list cache
 *
 * The owner folder is a hash, so no owner id (whatever characters it holds) becomes a path; session
 * ids are safe ids (core's `isSafeId`: no separators, never "." or "..").
 */
export function ownerDir(root: string, owner: string): string {
  return join(root, "owners", createHash("sha256").update(owner, "utf8").digest("hex"), "sessions");
}

export function sessionPath(root: string, owner: string, sessionId: string): string {
  return join(ownerDir(root, owner), `${sessionId}.jsonl`);
}

export function metaPath(sessionFile: string): string {
  return sessionFile.replace(/\.jsonl$/, ".meta.json");
}

/** Every owner folder's sessions directory. */
export function allOwnerDirs(root: string): string[] {
  return listDir(join(root, "owners")).map((name) => join(root, "owners", name, "sessions"));
}

/** Session ids in an owner folder. */
export function sessionIdsIn(dir: string): string[] {
  return listDir(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => name.slice(0, -".jsonl".length));
}

/**
 * The sidecar: what a JSONL file cannot say by itself. Written under the session file's lock,
 * before the lines it describes, so its stamp of the file (file/file-stamp.ts) can only know the
 * inode and the size to come: when the file is another one or has another size (a writer that
 * does not keep sidecars, such as pi, appended; or a crash came between the sidecar and the lines)
 * the list cache is recomputed from the file (`metaDescribes`), and when its entry count differs
 * the revision is derived (see `revisionOf`).
 */
export interface SessionMeta {
  owner: string;
  revision: number;
  /** The size of the file it describes. */
  bytes: number;
  /** The inode of the file it describes; absent in sidecars written before it was recorded. */
  ino?: number;
  /** Entries in the file (leaf markers included) when `bytes` was written. */
  lines: number;
  modifiedAt: string;
  deletedAt: string | null;
  /** The file's header, so a list needs no read of the session file. */
  header: SessionHeader;
  cache: DerivedFields & { leafId: string | null };
}

/**
 * The session's sidecar, null when it has none. A sidecar that cannot be read is an `io_error`, not
 * a missing one: it holds the revision and the soft delete, which the file cannot give back.
 */
export function readMeta(sessionFile: string): SessionMeta | null {
  const path = metaPath(sessionFile);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  try {
    return JSON.parse(text) as SessionMeta;
  } catch (error) {
    throw new SessionTreeError("io_error", `Sidecar ${path} is damaged: ${(error as Error).message}`, {
      cause: error,
      details: { path },
    });
  }
}

/**
 * Replaces the sidecar atomically, so a reader never sees half of one. Not fsynced: it is written
 * on every append, under the lock, and the session file's own durability setting governs appends.
 */
export function writeMeta(sessionFile: string, meta: SessionMeta): void {
  writeAtomic(metaPath(sessionFile), JSON.stringify(meta), { fsync: false });
}

/** Whether the sidecar describes the session file as it is (`stats`: a stat of it). */
export function metaDescribes(meta: SessionMeta, stats: SizeStamp & { mtimeMs: number }): boolean {
  // A sidecar without an inode is checked by its size alone, as all were before inodes were kept.
  return statMatches({ ino: meta.ino ?? stats.ino, size: meta.bytes }, stats);
}

/**
 * The revision of a file whose tree holds `lines` entries (leaf markers included): the sidecar's
 * when it describes that many; otherwise one more per entry written without it (at least one), so
 * a revision never goes back and every outside change is a new revision.
 */
export function revisionOf(meta: SessionMeta | null, lines: number): number {
  if (!meta) return 1 + lines;
  if (meta.lines === lines) return meta.revision;
  return meta.revision + Math.max(1, lines - meta.lines);
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/**
 * The sidecar for a session whose file will be `file` (its inode and size; see `stampBeforeAppend`
 * in file/file-stamp.ts) and hold `lines` entries.
 */
export function toMeta(
  summary: SessionSummary,
  header: SessionHeader,
  file: SizeStamp,
  lines: number,
): SessionMeta {
  const { entryCount, messageCount, firstMessage, name, leafId } = summary;
  return {
    owner: summary.owner,
    revision: summary.revision,
    bytes: file.size,
    ino: file.ino,
    lines,
    modifiedAt: summary.modifiedAt,
    deletedAt: summary.deletedAt,
    header,
    cache: { entryCount, messageCount, firstMessage, name, leafId },
  };
}
