import type { IdTable } from "../file/sidecar-index-model.js";

/**
 * Entry numbers by id over a sidecar index's `IdTable`, in one integer array (open addressing):
 * a million ids cost a few megabytes, where a `Map` would hold an entry and a string for each.
 * The index holds each id once (the first of a duplicate wins, as in the tree).
 */
export class IdLookup {
  private readonly table: Int32Array;
  private readonly mask: number;

  constructor(private readonly ids: IdTable) {
    let size = 16;
    while (size < ids.count * 2) size *= 2;
    this.table = new Int32Array(size).fill(-1);
    this.mask = size - 1;
    for (let n = 0; n < ids.count; n++) {
      let slot = hashOf(ids.text, this.startOf(n), ids.ends[n] as number) & this.mask;
      while (this.table[slot] !== -1) slot = (slot + 1) & this.mask;
      this.table[slot] = n;
    }
  }

  /** The entry number of `id`, -1 when the index has no such entry. */
  find(id: string): number {
    for (let slot = hashOf(id, 0, id.length) & this.mask; ; slot = (slot + 1) & this.mask) {
      const n = this.table[slot] as number;
      if (n === -1) return -1;
      const start = this.startOf(n);
      if ((this.ids.ends[n] as number) - start === id.length && this.ids.text.startsWith(id, start)) return n;
    }
  }

  private startOf(n: number): number {
    return n === 0 ? 0 : (this.ids.ends[n - 1] as number);
  }
}

/** FNV-1a over UTF-16 code units of `text` from `start` to `end`. */
function hashOf(text: string, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}
