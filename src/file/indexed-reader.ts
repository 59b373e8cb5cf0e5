import { closeSync, fstatSync, readSync } from "node:fs";
import type { SessionEntry, SessionHeader } from "../core/entry.js";
import type { SessionIssue } from "../core/issues.js";
import { checkEntryRead, checkHeader } from "../core/validate.js";
import { SessionDecoder } from "../format/jsonl/decode.js";
import { readLineRecords, wholeLinesEncoding } from "../format/jsonl/line-records.js";
import { isBlank } from "../format/jsonl/lines.js";
import { CHUNK, openExisting } from "./read-file.js";
import { currentIndex, type IndexState, rebuildIndex } from "./sidecar-index.js";
import { NotIndexable } from "./sidecar-index-builder.js";
import { KIND, kindOfEntry } from "./sidecar-index-kind.js";
import { parentIdOf, type SessionIndex } from "./sidecar-index-model.js";

/** What an index covers and which ids it holds: enough to append without reading the whole file. */
export interface IndexCoverage {
  inode: number;
  /** Bytes and lines up to and including the last indexed line. */
  bytes: number;
  lines: number;
  /** Whether an entry of the indexed lines has this id. */
  hasId(id: string): boolean;
}

/**
 * Runs `read` over a session file through its sidecar index (made or refreshed on the way). When
 * `read` meets a line that is not what the index says (it returns null), the index is rebuilt from
 * the file and `read` runs once more. Null when the file cannot be read this way: an older format,
 * no readable header, or an index that does not hold even when rebuilt; read it whole then.
 */
export function readThroughIndex<T>(
  sessionPath: string,
  read: (reader: IndexedReader, state: IndexState) => T | null,
): T | null {
  const fd = openExisting(sessionPath);
  try {
    const found = currentIndex(sessionPath, fd);
    if (!found) return null;
    const result = read(new IndexedReader(fd, found.index), found.state);
    if (result !== null) return result;
    return read(new IndexedReader(fd, rebuildIndex(sessionPath, fd)), "rebuilt");
  } catch (error) {
    if (error instanceof NotIndexable) return null;
    throw error;
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads the lines of an indexed file with positioned reads, coalescing neighbours into one read,
 * and checks each: it must hold a valid entry with the id, parent and kind the index says.
 */
export class IndexedReader {
  private readonly parsed = new Map<number, SessionEntry>();
  /**
   * Where every range is read, grown as needed: its lines are made strings before the next read.
   * A new buffer per read made every resume allocate (and the collector account for) as much
   * memory outside the heap as the lines it read.
   */
  private scratch = Buffer.allocUnsafe(0);

  constructor(
    private readonly fd: number,
    readonly index: SessionIndex,
  ) {}

  /** The header, or null when its line is no longer a valid header. */
  header(): SessionHeader | null {
    const { offset, length } = this.index.header;
    const line = this.readLine(offset, length);
    if (line === null) return null;
    // The first record of the line: entries may be glued after it (a lost newline).
    const checked = checkHeader(valuesOf(line, offset)[0]);
    return checked.ok ? checked.value : null;
  }

  /** Entry `n`, read and checked (once); null when its line is not what the index says. */
  entry(n: number): SessionEntry | null {
    return this.readAll([n]) ? (this.parsed.get(n) as SessionEntry) : null;
  }

  /** Entries `numbers`, in that order; null when a line is not what the index says. */
  entries(numbers: readonly number[]): SessionEntry[] | null {
    if (!this.readAll(numbers)) return null;
    return numbers.map((n) => this.parsed.get(n) as SessionEntry);
  }

  /** Bytes after the last complete line, reported as the full reader does. */
  tornTail(): SessionIssue[] {
    const { indexedBytes, indexedLines } = this.index;
    const size = fstatSync(this.fd).size;
    if (size <= indexedBytes) return [];
    const tail = Buffer.alloc(size - indexedBytes);
    readSync(this.fd, tail, 0, tail.length, indexedBytes);
    if (isBlank(tail)) return [];
    const line = indexedLines + 1;
    if (tail.includes(10)) {
      // Lines appended since the index was checked: all of it is past what this resume read.
      return [
        {
          code: "torn_tail",
          severity: "warning",
          message: `Line ${line} (${tail.length} bytes) has no newline: an interrupted write, not part of the session`,
          line,
          offset: indexedBytes,
        },
      ];
    }
    // One unterminated line, decoded as the full reader decodes it: the same report, whole entries it holds included.
    const decoder = new SessionDecoder({ line: indexedLines, offset: indexedBytes });
    decoder.push(tail);
    return decoder.finish({ tailIsTorn: true }).issues;
  }

  coverage(): IndexCoverage {
    const index = this.index;
    // 100,000 ids as a set cost a few milliseconds: made when the first append asks.
    let ids: Set<string> | undefined;
    return {
      inode: index.stamp.ino,
      bytes: index.indexedBytes,
      lines: index.indexedLines,
      hasId: (id) => {
        ids ??= new Set(index.ids.toArray());
        return ids.has(id);
      },
    };
  }

  private readAll(numbers: readonly number[]): boolean {
    const offsets = this.index.offsets;
    const todo = numbers.filter((n) => !this.parsed.has(n));
    todo.sort((a, b) => (offsets[a] as number) - (offsets[b] as number));
    let i = 0;
    while (i < todo.length) {
      const first = todo[i] as number;
      let last = i;
      while (
        last + 1 < todo.length &&
        this.closeEnough(first, todo[last] as number, todo[last + 1] as number)
      )
        last++;
      if (!this.readRange(todo.slice(i, last + 1))) return false;
      i = last + 1;
    }
    return true;
  }

  /**
   * Whether line `next` joins the read of `first` … `previous`: the bytes between them are few (a
   * read of lines scattered over a file, as a drawing of its tree asks, reads those lines, not the
   * file) and the read stays bounded.
   */
  private closeEnough(first: number, previous: number, next: number): boolean {
    const { offsets, lengths } = this.index;
    const gap = (offsets[next] as number) - (offsets[previous] as number) - (lengths[previous] as number);
    const end = (offsets[next] as number) + (lengths[next] as number);
    return gap <= MAX_GAP && end - (offsets[first] as number) <= 4 * CHUNK;
  }

  private readRange(group: number[]): boolean {
    const { offsets, lengths } = this.index;
    const start = offsets[group[0] as number] as number;
    const lastOne = group[group.length - 1] as number;
    const bytes = this.readLine(start, (offsets[lastOne] as number) + (lengths[lastOne] as number) - start);
    if (bytes === null) return false;
    const encoding = wholeLinesEncoding(bytes);
    for (const n of group) {
      const at = (offsets[n] as number) - start;
      const entry = this.entryOfLine(n, bytes.subarray(at, at + (lengths[n] as number)), encoding);
      if (entry === null || !this.matches(n, entry)) return false;
      this.parsed.set(n, entry);
    }
    return true;
  }

  /**
   * Entry `n` from its line, whose bytes are known to be valid in `encoding` (null: not known).
   * Records glued on one line (a lost newline) are indexed with the line's offset and length each;
   * the line is split again and the record with `n`'s id is taken (the first one, as the index and
   * the tree keep the first of a duplicate id).
   */
  private entryOfLine(n: number, line: Buffer, encoding: "latin1" | "utf8" | null): SessionEntry | null {
    const id = this.index.ids.at(n);
    for (const value of valuesOf(line, this.index.offsets[n] as number, encoding)) {
      const checked = checkEntryRead(value);
      // A malformed entry is not read here: the whole read keeps it and reports it.
      if (checked.ok && checked.value.id === id)
        return checked.malformed === undefined ? checked.value : null;
    }
    return null;
  }

  /**
   * `length` bytes at `offset`, which must be followed by a newline; null when the file says
   * otherwise. They are in `scratch`, good until the next read.
   */
  private readLine(offset: number, length: number): Buffer | null {
    if (this.scratch.length < length + 1) this.scratch = Buffer.allocUnsafe(Math.max(length + 1, CHUNK));
    const bytes = this.scratch.subarray(0, length + 1);
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(this.fd, bytes, got, bytes.length - got, offset + got);
      if (n === 0) return null;
      got += n;
    }
    return bytes[length] === 10 ? bytes.subarray(0, length) : null;
  }

  /** The line holds the entry the index says: same id, parent and kind. */
  private matches(n: number, entry: SessionEntry): boolean {
    const kind = this.index.kinds[n] as number;
    const actual = kindOfEntry(entry);
    const kindOk = kind === actual || (kind === KIND.messageUnknownRole && entry.type === "message");
    return entry.id === this.index.ids.at(n) && entry.parentId === parentIdOf(this.index, n) && kindOk;
  }
}

/** Bytes between two wanted lines read through rather than skipped (a read costs more than this). */
const MAX_GAP = 16 * 1024;

/**
 * The JSON values of a line (one, unless records were glued on it); problems make it not match.
 * A line known to be valid in `encoding` is parsed straight away; one that does not parse then
 * takes the line-by-line path, which splits glued records.
 */
function valuesOf(line: Buffer, offset: number, encoding: "latin1" | "utf8" | null = null): unknown[] {
  if (encoding !== null) {
    try {
      return [JSON.parse(line.toString(encoding))];
    } catch {
      // Read again below, record by record.
    }
  }
  return readLineRecords({ bytes: line, line: 0, offset }, () => {}).map((record) => record.value);
}
