import { createHash } from "node:crypto";
import { readSync, type Stats } from "node:fs";

/**
 * Stamps that let a cache of a file (the listing catalog, the sidecar index, the JSONL store's
 * `.meta.json`) tell, cheaply, whether the file is still the one it describes. A stamp is never
 * trusted over the file: it only decides between reusing the cache, reading what was appended
 * since, and reading the file again.
 */

/** What can be known of a file before the write it describes: which file, and its size after. */
export interface SizeStamp {
  ino: number;
  size: number;
}

/** The hash of a region of a file's content: `bytes` long, where it starts is the stamp's to say. */
export interface RegionHash {
  bytes: number;
  hash: string;
}

/**
 * A file as a cache saw it: inode, size and mtime, plus hashes of the first bytes and of the last
 * bytes of the part the cache covers (up to `covered`, the end of its last complete line), so that
 * a file that only grew can be told from one that was edited or replaced.
 */
export interface FileStamp extends SizeStamp {
  mtimeMs: number;
  covered: number;
  /** The bytes from 0. */
  head: RegionHash;
  /** The bytes that end at `covered`. */
  tail: RegionHash;
}

/**
 * - `"unchanged"`: same inode, size and mtime (and, when asked to verify, the same covered bytes);
 * - `"grew"`: the same file with bytes after the stamp's size, the covered bytes checked unchanged:
 *   read on from `covered`;
 * - `"replaced"`: anything else (another inode, shrunk, rewritten, touched): read it again whole.
 */
export type StampCheck = "unchanged" | "grew" | "replaced";

/** Which regions a stamp hashes: the first `head` bytes, the last `tail` bytes before `covered`. */
export interface StampRegions {
  covered: number;
  head: number;
  tail: number;
}

/** Stamps the open file `fd`, whose stat (taken before reading it) is `stats`. */
export function takeStamp(fd: number, stats: Stats, regions: StampRegions): FileStamp {
  const { covered } = regions;
  const head = Math.min(regions.head, covered);
  const tail = Math.min(regions.tail, covered);
  // A file cut short while being stamped gets "", a hash no content has: the next check re-reads it.
  return {
    ino: stats.ino,
    size: stats.size,
    mtimeMs: stats.mtimeMs,
    covered,
    head: { bytes: head, hash: hashRegion(fd, 0, head) ?? "" },
    tail: { bytes: tail, hash: hashRegion(fd, covered - tail, tail) ?? "" },
  };
}

/** The stamp of a file about to grow by `added` bytes, written before them (so no mtime, no hashes). */
export function stampBeforeAppend(stats: SizeStamp, added: number): SizeStamp {
  return { ino: stats.ino, size: stats.size + added };
}

/**
 * Whether a stat alone finds the file as stamped: same inode and size, and same mtime when the
 * stamp has one. An edit in place that keeps the size and puts the mtime back passes; callers that
 * must catch it use `checkStamp` with `verifyUnchanged`.
 */
export function statMatches(stamp: SizeStamp & { mtimeMs?: number }, stats: SizeStamp & { mtimeMs: number }) {
  if (stamp.ino !== stats.ino || stamp.size !== stats.size) return false;
  return stamp.mtimeMs === undefined || stamp.mtimeMs === stats.mtimeMs;
}

/**
 * What became of the open file `fd` (now `stats`) since `stamp` was taken. Reads only the two
 * hashed regions, and only when the stat says the file grew (or `verifyUnchanged` asks for it).
 */
export function checkStamp(
  stamp: FileStamp,
  fd: number,
  stats: Stats,
  options: { verifyUnchanged?: boolean } = {},
): StampCheck {
  if (stamp.ino !== stats.ino) return "replaced";
  if (statMatches(stamp, stats)) {
    return !options.verifyUnchanged || coveredBytesHold(fd, stamp) ? "unchanged" : "replaced";
  }
  return stats.size > stamp.size && coveredBytesHold(fd, stamp) ? "grew" : "replaced";
}

function coveredBytesHold(fd: number, stamp: FileStamp): boolean {
  const { covered, head, tail } = stamp;
  return (
    hashRegion(fd, 0, head.bytes) === head.hash &&
    hashRegion(fd, covered - tail.bytes, tail.bytes) === tail.hash
  );
}

/** The hash of `length` bytes at `offset`, or null when the file ends before them. */
function hashRegion(fd: number, offset: number, length: number): string | null {
  const bytes = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, bytes, got, length - got, offset + got);
    if (n === 0) return null;
    got += n;
  }
  return createHash("sha1").update(bytes).digest("base64");
}
