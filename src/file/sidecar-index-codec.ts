import { readFileSync } from "node:fs";
import { IdTable, type SessionIndex } from "./sidecar-index-model.js";
import { writeAtomic } from "./write-atomic.js";

/**
 * An index file (where it lives: sidecar-index-cache.ts): a magic line, a JSON block of the scalar fields, the arrays as raw
 * little-endian bytes (8-byte aligned, so they load as typed-array views), the ids' text, a
 * trailer. A file that is torn, truncated or of another version does not load, and is rebuilt.
 */
// STIDX02: the stamp (file-stamp.ts) replaced the per-line hashes of STIDX01, which are rebuilt.
// STIDX03: a line with a second `"parentId":` is parsed (an entry glued after a cut record); a
// STIDX02 index of such a file holds the cut record instead, and is rebuilt.
const MAGIC = Buffer.from("STIDX03\n");
const TRAILER = Buffer.from("STIDXEND");

/** Writes the index file atomically, private to the user. A cache: failing loses nothing (false). */
export function saveIndex(indexPath: string, index: SessionIndex): boolean {
  try {
    // No fsync: a torn index fails its trailer check and is rebuilt.
    writeAtomic(indexPath, serializeIndex(index), { fsync: false, mode: 0o600 });
    return true;
  } catch {
    // Read-only folder or full disk: the next open indexes again, nothing else depends on it.
    return false;
  }
}

/** Reads an index file; null when it is missing, truncated or not an index. */
export function loadIndex(indexPath: string): SessionIndex | null {
  let file: Buffer;
  try {
    file = readFileSync(indexPath);
  } catch {
    return null;
  }
  try {
    return parseIndex(file);
  } catch {
    return null;
  }
}

function serializeIndex(index: SessionIndex): Buffer {
  const { ids, parents, kinds, offsets, lengths, lines, ...scalars } = index;
  const idText = Buffer.from(ids.text, "utf8");
  const meta = Buffer.from(JSON.stringify({ ...scalars, count: ids.count, idBytes: idText.length }));
  const head = Buffer.alloc(align8(MAGIC.length + 4 + meta.length));
  MAGIC.copy(head, 0);
  head.writeUInt32LE(meta.length, MAGIC.length);
  meta.copy(head, MAGIC.length + 4);
  const arrays = [offsets, parents, lengths, lines, ids.ends, kinds].map((a) =>
    Buffer.from(a.buffer, a.byteOffset, a.byteLength),
  );
  const body = Buffer.concat([head, ...arrays]);
  return Buffer.concat([body, Buffer.alloc(align8(body.length) - body.length), idText, TRAILER]);
}

function parseIndex(file: Buffer): SessionIndex | null {
  if (file.length < MAGIC.length + 4 + TRAILER.length || !file.subarray(0, MAGIC.length).equals(MAGIC))
    return null;
  if (!file.subarray(file.length - TRAILER.length).equals(TRAILER)) return null;
  const metaLength = file.readUInt32LE(MAGIC.length);
  const meta = JSON.parse(file.toString("utf8", MAGIC.length + 4, MAGIC.length + 4 + metaLength));
  const count = meta.count as number;
  // Copy into an aligned buffer so typed arrays can view it directly.
  const aligned = new Uint8Array(file.length);
  aligned.set(file);
  let at = align8(MAGIC.length + 4 + metaLength);
  const take = <T>(make: (buffer: ArrayBuffer, at: number, n: number) => T, bytes: number): T => {
    const view = make(aligned.buffer, at, count);
    at += bytes * count;
    return view;
  };
  const offsets = take((b, o, n) => new Float64Array(b, o, n), 8);
  const parents = take((b, o, n) => new Int32Array(b, o, n), 4);
  const lengths = take((b, o, n) => new Uint32Array(b, o, n), 4);
  const lines = take((b, o, n) => new Uint32Array(b, o, n), 4);
  const idEnds = take((b, o, n) => new Uint32Array(b, o, n), 4);
  const kinds = take((b, o, n) => new Uint8Array(b, o, n), 1);
  at = align8(at);
  if (at + meta.idBytes + TRAILER.length !== file.length) return null;
  const idText = file.toString("utf8", at, at + meta.idBytes);
  if ((count === 0 ? 0 : idEnds[count - 1]) !== idText.length) return null;
  const ids = new IdTable(idText, idEnds);
  return { ...meta, ids, parents, kinds, offsets, lengths, lines };
}

function align8(n: number): number {
  return (n + 7) & ~7;
}
