import { fstatSync, readSync } from "node:fs";
import { checkStamp } from "../file/file-stamp.js";
import { IndexBuilder, NotIndexable, scanInto } from "../file/sidecar-index-builder.js";
import { loadCachedIndex, saveCachedIndex } from "../file/sidecar-index-cache.js";
import type { SessionIndex } from "../file/sidecar-index-model.js";
import { lookOfBytes, lookOfLine, RecordStarts } from "./line-look.js";
import { loadLooks, saveLooks } from "./looks-cache.js";

/** A session file's sidecar index and each entry's look (line-look.ts), by entry number. */
export interface IndexedLooks {
  index: SessionIndex;
  looks: Uint8Array;
  /** How the index was found: as saved, extended over appended lines, or built by this scan. */
  state: "warm" | "caught-up" | "rebuilt";
}

/**
 * The index of the open session file `fd` (sessiontree's cached one when its stamp holds, as
 * file/sidecar-index.ts's `currentIndex` decides) and the look of every entry. Built anew, the
 * index and the looks come from one scan of the file; found, the looks are one sequential read
 * that parses only the lines whose end it cannot read (line-look.ts). Null for a file the index
 * does not cover (older formats, no readable header). The looks are kept beside the index
 * (looks-cache.ts), so a later open with the index saved reads none of the lines. A new index and
 * its looks are written through `save` (at once by default; the viewer defers it past its answer).
 */
export function indexWithLooks(
  sessionPath: string,
  fd: number,
  save: (work: () => void) => void = (work) => work(),
): IndexedLooks | null {
  const stats = fstatSync(fd);
  const saved = loadCachedIndex(sessionPath);
  try {
    const found = saved ? checkStamp(saved.stamp, fd, stats, { verifyUnchanged: true }) : "replaced";
    if (saved && found === "unchanged") {
      return { index: saved, looks: savedLooks(sessionPath, fd, saved, saved), state: "warm" };
    }
    if (saved && found === "grew") {
      const start = { line: saved.indexedLines, offset: saved.indexedBytes };
      const index = scanInto(IndexBuilder.continuing(saved), fd, stats, start);
      saveCachedIndex(sessionPath, index);
      return { index, looks: savedLooks(sessionPath, fd, saved, index), state: "caught-up" };
    }
    const builder = new LookingBuilder();
    const index = scanInto(builder, fd, stats);
    const looks = builder.looks.subarray(0, index.ids.count);
    save(() => {
      if (saveCachedIndex(sessionPath, index)) saveLooks(sessionPath, index.stamp, looks);
    });
    return { index, looks, state: "rebuilt" };
  } catch (error) {
    if (error instanceof NotIndexable) return null;
    throw error;
  }
}

/** The indexer, also taking each new entry's look from the line it has in hand. */
class LookingBuilder extends IndexBuilder {
  looks = new Uint8Array(1 << 12);
  private readonly records = new RecordStarts();
  /** The file offset of `buffer[0]` of the lines last handed over: another one, other bytes. */
  private base = -1;

  override onBytes(
    buffer: Buffer,
    start: number,
    end: number,
    line: number,
    offset: number,
    mayGlue: boolean,
  ): void {
    const before = this.count;
    super.onBytes(buffer, start, end, line, offset, mayGlue);
    // A line of several records (a lost newline) is an issue of the index: the viewer reads it whole.
    if (this.count !== before + 1) return;
    if (before === this.looks.length) {
      const bigger = new Uint8Array(this.looks.length * 2);
      bigger.set(this.looks);
      this.looks = bigger;
    }
    if (offset - start !== this.base) {
      this.base = offset - start;
      this.records.reset();
    }
    const kind = this.kinds[before] as number;
    this.looks[before] = lookOfBytes(buffer, start, end, kind, this.lineRole, this.records);
  }
}

/**
 * The looks of `index`'s entries: those saved with `saved` (the index as it was found: the same
 * one, or the one `index` continued over appended lines) and the rest read from their lines, then
 * kept for the next open when any had to be read.
 */
function savedLooks(sessionPath: string, fd: number, saved: SessionIndex, index: SessionIndex): Uint8Array {
  const kept = loadLooks(sessionPath, saved.stamp);
  if (kept !== null && kept.length === index.ids.count) return kept;
  const looks = looksOf(fd, index, kept ?? new Uint8Array(0));
  saveLooks(sessionPath, index.stamp, looks);
  return looks;
}

/** Bytes read at once by the looks pass. */
const WINDOW = 4 << 20;

/**
 * The looks of an index's entries: their lines read in file order, in large reads (each line's
 * end is checked, so every line is read, though most types say their look alone).
 */
function looksOf(fd: number, index: SessionIndex, known: Uint8Array): Uint8Array {
  const count = index.ids.count;
  const looks = new Uint8Array(count);
  looks.set(known.subarray(0, count));
  const window = new LineWindow(fd);
  for (let n = known.length; n < count; n++) {
    const line = window.line(index.offsets[n] as number, index.lengths[n] as number);
    looks[n] = lookOfLine(line, index.kinds[n] as number);
  }
  return looks;
}

/** Lines asked for in increasing offsets, served from one buffer refilled forward. */
class LineWindow {
  private readonly buffer = Buffer.allocUnsafe(WINDOW);
  private start = 0;
  private end = 0;

  constructor(private readonly fd: number) {}

  line(offset: number, length: number): Buffer {
    if (offset < this.start || offset + length > this.end) {
      const into = length > WINDOW ? Buffer.allocUnsafe(length) : this.buffer;
      const got = readFully(this.fd, into, offset);
      if (into !== this.buffer) return into.subarray(0, Math.min(got, length));
      this.start = offset;
      this.end = offset + got;
    }
    return this.buffer.subarray(offset - this.start, offset - this.start + length);
  }
}

/** Fills `into` from `offset`, up to the file's end; the bytes read. */
function readFully(fd: number, into: Buffer, offset: number): number {
  let got = 0;
  while (got < into.length) {
    const n = readSync(fd, into, got, into.length - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}
