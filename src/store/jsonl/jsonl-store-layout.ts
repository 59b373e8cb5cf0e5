import { createHash } from "node:crypto";
import { readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SessionHeader } from "../../core/entry.js";
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
 * before the lines it describes. `bytes` is the file size it describes: when the file has another
 * size (a writer that does not keep sidecars, such as pi, appended; or a crash came between the
 * sidecar and the lines) the list cache is recomputed from the file, and when its entry count
 * differs the revision is derived (see `revisionOf`).
 */
export interface SessionMeta {
  owner: string;
  revision: number;
  bytes: number;
  /** Entries in the file (leaf markers included) when `bytes` was written. */
  lines: number;
  modifiedAt: string;
  deletedAt: string | null;
  /** The file's header, so a list needs no read of the session file. */
  header: SessionHeader;
  cache: DerivedFields & { leafId: string | null };
}

export function readMeta(sessionFile: string): SessionMeta | null {
  try {
    return JSON.parse(readFileSync(metaPath(sessionFile), "utf8")) as SessionMeta;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Replaces the sidecar atomically (temp file + rename), so a reader never sees half of one. */
export function writeMeta(sessionFile: string, meta: SessionMeta): void {
  const target = metaPath(sessionFile);
  const temp = `${target}.tmp-${process.pid}`;
  writeFileSync(temp, JSON.stringify(meta));
  renameSync(temp, target);
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

/** The sidecar for a session whose file is `bytes` long and holds `lines` entries. */
export function toMeta(
  summary: SessionSummary,
  header: SessionHeader,
  bytes: number,
  lines: number,
): SessionMeta {
  const { entryCount, messageCount, firstMessage, name, leafId } = summary;
  return {
    owner: summary.owner,
    revision: summary.revision,
    bytes,
    lines,
    modifiedAt: summary.modifiedAt,
    deletedAt: summary.deletedAt,
    header,
    cache: { entryCount, messageCount, firstMessage, name, leafId },
  };
}
