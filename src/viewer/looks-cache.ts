import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { cachePathFor, ensurePrivateDir } from "../file/cache-dir.js";
import type { FileStamp } from "../file/file-stamp.js";
import { writeAtomic } from "../file/write-atomic.js";

/**
 * Each entry's look (line-look.ts) kept beside the session's sidecar index in sessiontree's cache
 * (`<cache>/index/<hash of the file's path>.looks`): with the index saved, finding the looks again
 * means reading every line of the file (a fifth of a second at 100,000 entries, before the first
 * paint), where this file is one read of a byte per entry.
 *
 * The looks are saved with the stamp of the index they were taken with and its entry count: they
 * are used only with an index of that same stamp (which its loader checked against the file), or,
 * for a file that grew, as the looks of the entries the older index covered. Rebuildable, like
 * everything in the cache: a file that does not load is ignored and written again.
 */
const SUFFIX = ".looks";
/**
 * Part of every saved header: raise it with any change to what a look is (line-look.ts), or saved
 * looks of the older rule are served until their file changes.
 */
const FORMAT = 1;

interface LooksHeader {
  format: number;
  count: number;
  stamp: FileStamp;
}

/** Where the looks of `sessionPath` are kept: beside its index. */
export function looksPathFor(sessionPath: string): string {
  return cachePathFor("index", sessionPath, SUFFIX);
}

/** The looks saved for `sessionPath` taken with an index stamped `stamp`, or null. */
export function loadLooks(sessionPath: string, stamp: FileStamp): Uint8Array | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(looksPathFor(sessionPath));
  } catch {
    return null;
  }
  const newline = bytes.indexOf(0x0a);
  if (newline < 0) return null;
  let header: LooksHeader;
  try {
    header = JSON.parse(bytes.toString("utf8", 0, newline)) as LooksHeader;
  } catch {
    return null;
  }
  const looks = bytes.subarray(newline + 1);
  if (header.format !== FORMAT || header.count !== looks.length || !sameStamp(header.stamp, stamp))
    return null;
  return new Uint8Array(looks);
}

/** Saves the looks of an index stamped `stamp`; false when the cache cannot be written. */
export function saveLooks(sessionPath: string, stamp: FileStamp, looks: Uint8Array): boolean {
  const path = looksPathFor(sessionPath);
  if (!ensurePrivateDir(dirname(path))) return false;
  const header: LooksHeader = { format: FORMAT, count: looks.length, stamp };
  try {
    // No fsync: a torn file fails its count check and is made again.
    const data = Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), looks]);
    writeAtomic(path, data, { fsync: false, mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}

function sameStamp(a: FileStamp | undefined, b: FileStamp): boolean {
  return (
    a !== undefined &&
    a.ino === b.ino &&
    a.size === b.size &&
    a.mtimeMs === b.mtimeMs &&
    a.covered === b.covered &&
    a.head?.bytes === b.head.bytes &&
    a.head.hash === b.head.hash &&
    a.tail?.bytes === b.tail.bytes &&
    a.tail.hash === b.tail.hash
  );
}
