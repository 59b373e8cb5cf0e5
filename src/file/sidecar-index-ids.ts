import { IdTable } from "./sidecar-index-model.js";

/** Code units kept for ids before the first growth (100,000 pi ids are 800,000). */
const FIRST_UNITS = 1 << 16;
const FIRST_IDS = 1 << 12;
const EMPTY = -1;

/**
 * The ids of the entries an indexer has seen, numbered in the order they were added, and found by
 * id: an open-addressing hash table over the ids' code units, kept in one growing array. The
 * indexer's scan looks ids up straight from the line's bytes, so indexing 100,000 entries makes no
 * string and no map entry per id (a `Map<string, number>` of them was a third of the scan), and
 * the ids end as the `IdTable` the index keeps.
 *
 * Bytes are ids of plain ASCII (what `scanPrefixSpans` reads), so a byte is the code unit of its
 * character, and an id added from bytes and the same id added as a string are one id.
 */
export class IdSet {
  private units = new Uint16Array(FIRST_UNITS);
  private used = 0;
  private ends = new Uint32Array(FIRST_IDS);
  /** Each id's hash, kept so that growing the table hashes nothing again. */
  private hashes = new Uint32Array(FIRST_IDS);
  private slots = new Int32Array(FIRST_IDS * 2).fill(EMPTY);
  private size = 0;
  /** Whether the last id stored is found by id (it is not a duplicate `push` kept unfound). */
  private lastIndexed = false;
  /** Whether a code unit over 255 was stored: the table's text is then not latin-1. */
  private wide = false;

  /** Ids stored (`add*` and `push`), each numbered by its place. */
  get count(): number {
    return this.size;
  }

  /** The number of the id at bytes `start`–`end` of `buffer`, or -1. */
  findBytes(buffer: Uint8Array, start: number, end: number): number {
    // Most entries' parent is the entry before them: its id is compared first, in the cache
    // still, before the table is probed at a place no other lookup was near.
    const last = this.size - 1;
    if (this.lastIndexed && this.sameAsBytes(last, buffer, start, end)) return last;
    return this.probeBytes(hashBytes(buffer, start, end), buffer, start, end);
  }

  /** The number of `id`, or -1. */
  find(id: string): number {
    return this.findText(id, 0, id.length);
  }

  /** Adds the id at bytes `start`–`end` of `buffer` unless it is there: false when it was. */
  addBytes(buffer: Uint8Array, start: number, end: number): boolean {
    const hash = hashBytes(buffer, start, end);
    if (this.probeBytes(hash, buffer, start, end) !== EMPTY) return false;
    this.store(end - start, hash);
    for (let i = start; i < end; i++) this.units[this.used++] = buffer[i] as number;
    this.index(hash);
    return true;
  }

  /** Adds `id` unless it is there: false when it was. */
  add(id: string): boolean {
    if (this.find(id) !== EMPTY) return false;
    this.push(id, 0, id.length);
    return true;
  }

  /**
   * Stores the id at characters `start`–`end` of `text` as the next number, and finds it by id
   * unless an earlier number has it (the first of a duplicate wins, as in `SessionTree.load`).
   */
  push(text: string, start: number, end: number): void {
    const found = this.findText(text, start, end);
    const hash = hashText(text, start, end);
    this.store(end - start, hash);
    for (let i = start; i < end; i++) {
      const unit = text.charCodeAt(i);
      if (unit > 0xff) this.wide = true;
      this.units[this.used++] = unit;
    }
    if (found === EMPTY) this.index(hash);
    else this.lastIndexed = false;
  }

  /** The ids as the index keeps them: one string and where each ends. */
  table(): IdTable {
    const units = this.units.subarray(0, this.used);
    const text = this.wide ? wideText(units) : Buffer.from(units).toString("latin1");
    return new IdTable(text, this.ends.slice(0, this.size));
  }

  /** Room for one more id of `length` units, its end and hash recorded (before its units are written). */
  private store(length: number, hash: number): void {
    if (this.used + length > this.units.length) {
      const bigger = new Uint16Array(Math.max(this.units.length * 2, this.used + length));
      bigger.set(this.units.subarray(0, this.used));
      this.units = bigger;
    }
    if (this.size === this.ends.length) {
      this.ends = doubled(this.ends);
      this.hashes = doubled(this.hashes);
    }
    this.hashes[this.size] = hash;
    this.ends[this.size++] = this.used + length;
  }

  /** Makes the id just stored (number `size - 1`, hashed `hash`) found by id. */
  private index(hash: number): void {
    this.lastIndexed = true;
    if (this.size * 2 > this.slots.length) this.rehash();
    else this.place(this.size - 1, hash);
  }

  private place(n: number, hash: number): void {
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    while (this.slots[slot] !== EMPTY) slot = (slot + 1) & mask;
    this.slots[slot] = n;
  }

  /** Twice the slots, every id found by id placed again, and the one just stored. */
  private rehash(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2).fill(EMPTY);
    for (const n of old) if (n !== EMPTY) this.place(n, this.hashes[n] as number);
    this.place(this.size - 1, this.hashes[this.size - 1] as number);
  }

  private probeBytes(hash: number, buffer: Uint8Array, start: number, end: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const n = this.slots[slot] as number;
      if (n === EMPTY || this.sameAsBytes(n, buffer, start, end)) return n;
    }
  }

  /** The number of the id at characters `start`–`end` of `text`, or -1. */
  private findText(text: string, start: number, end: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hashText(text, start, end) & mask; ; slot = (slot + 1) & mask) {
      const n = this.slots[slot] as number;
      if (n === EMPTY || this.sameAsText(n, text, start, end)) return n;
    }
  }

  private startOf(n: number): number {
    return n === 0 ? 0 : (this.ends[n - 1] as number);
  }

  private sameAsBytes(n: number, buffer: Uint8Array, start: number, end: number): boolean {
    const from = this.startOf(n);
    if ((this.ends[n] as number) - from !== end - start) return false;
    for (let i = 0; i < end - start; i++) if (this.units[from + i] !== buffer[start + i]) return false;
    return true;
  }

  private sameAsText(n: number, text: string, start: number, end: number): boolean {
    const from = this.startOf(n);
    if ((this.ends[n] as number) - from !== end - start) return false;
    for (let i = 0; i < end - start; i++)
      if (this.units[from + i] !== text.charCodeAt(start + i)) return false;
    return true;
  }
}

// FNV-1a over code units; both agree on the same id.
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function hashBytes(buffer: Uint8Array, start: number, end: number): number {
  let hash = FNV_OFFSET;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ (buffer[i] as number), FNV_PRIME);
  return hash >>> 0;
}

function hashText(text: string, start: number, end: number): number {
  let hash = FNV_OFFSET;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
  return hash >>> 0;
}

/** Code units as a string, a slice at a time (an argument list has a limit). */
function wideText(units: Uint16Array): string {
  let text = "";
  for (let at = 0; at < units.length; at += 8192)
    text += String.fromCharCode(...units.subarray(at, Math.min(at + 8192, units.length)));
  return text;
}

function doubled(values: Uint32Array): Uint32Array<ArrayBuffer> {
  const bigger = new Uint32Array(values.length * 2);
  bigger.set(values);
  return bigger;
}
