import type { SessionIssue } from "../core/issues.js";
import type { FileStamp } from "./file-stamp.js";

/** A parent entry number meaning "no parent" (a root). */
export const NO_PARENT = -1;
/** A parent entry number meaning "a parent id the file does not hold (yet)": see `dangling`. */
export const DANGLING = -2;

/** Where a line is in the file (without its newline). */
export interface LinePosition {
  offset: number;
  length: number;
}

/**
 * Everything the sidecar index knows of a session file, in memory: for every entry its id, parent,
 * kind (sidecar-index-kind.ts), line number, byte offset and length, plus the leaf. Arrays are
 * indexed by entry number (file order).
 */
export interface SessionIndex {
  /** The file as indexed; its hashed regions are the header line and the last indexed line. */
  stamp: FileStamp;
  /** Bytes covered: up to and including the last complete line. */
  indexedBytes: number;
  indexedLines: number;
  header: LinePosition;
  /** Entry number of the leaf, or -1 for none. */
  leaf: number;
  ids: IdTable;
  parents: Int32Array;
  kinds: Uint8Array;
  offsets: Float64Array;
  lengths: Uint32Array;
  lines: Uint32Array;
  /** Parent ids not (yet) present, by entry number: a later line may bring them. */
  dangling: Record<number, string>;
  /** Problems met on the lines the indexer parsed (line numbers and offsets). */
  issues: SessionIssue[];
}

/**
 * Entry ids as one string and the end of each: loading 100,000 ids is one decode, and an id
 * becomes a string only when asked for.
 */
export class IdTable {
  constructor(
    readonly text: string,
    readonly ends: Uint32Array,
  ) {}

  static of(ids: readonly string[]): IdTable {
    const ends = new Uint32Array(ids.length);
    let end = 0;
    ids.forEach((id, i) => {
      end += id.length;
      ends[i] = end;
    });
    return new IdTable(ids.join(""), ends);
  }

  get count(): number {
    return this.ends.length;
  }

  at(n: number): string {
    return this.text.slice(n === 0 ? 0 : (this.ends[n - 1] as number), this.ends[n] as number);
  }

  toArray(): string[] {
    return Array.from({ length: this.count }, (_, n) => this.at(n));
  }
}

/** The parent id of entry `n`, as its line says it (a dangling one included). */
export function parentIdOf(index: SessionIndex, n: number): string | null {
  const parent = index.parents[n] as number;
  if (parent === NO_PARENT) return null;
  return parent === DANGLING ? (index.dangling[n] as string) : index.ids.at(parent);
}

/** Entry numbers root → leaf; null when the parent chain loops (the full reader reports the cycle). */
export function pathToLeaf(index: SessionIndex): Int32Array | null {
  // The column in a local: read through the index object (a dozen fields) on every step, a
  // 70,000-entry path took 5-10 ms; counted first, the path is then filled in place from its end.
  const parents = index.parents;
  let depth = 0;
  for (let n = index.leaf, budget = index.ids.count; n >= 0; n = parents[n] as number)
    if (++depth > budget) return null;
  const path = new Int32Array(depth);
  for (let n = index.leaf, at = depth - 1; n >= 0; n = parents[n] as number) path[at--] = n;
  return path;
}

/**
 * Whether `path` (root → leaf, as `pathToLeaf` gives it) starts at an entry whose parent id no
 * entry of the index has: the file lost that parent, or holds it where the indexer could not read it.
 */
export function startsAtMissingParent(index: SessionIndex, path: ArrayLike<number>): boolean {
  return path.length > 0 && index.parents[path[0] as number] === DANGLING;
}
