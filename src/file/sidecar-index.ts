import { createHash } from "node:crypto";
import {
  constants,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  type Stats,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { CURRENT_SESSION_VERSION, isLeafMarker, type SessionEntry } from "../core/entry.js";
import { NotFoundError } from "../core/errors.js";
import type { SessionIssue } from "../core/issues.js";
import { checkEntry, checkHeader } from "../core/validate.js";
import { isBlank, LineSplitter, type RawLine, scanEntryPrefix } from "../format/jsonl/lines.js";

/**
 * A rebuildable sidecar index of a session file (`<file>.idx`): for every entry its id, parent,
 * kind, line number, byte offset and length, plus the leaf. With it, a resume reads only the lines
 * the leaf's context needs, with positioned reads, instead of the whole file.
 *
 * The index is a cache and is never trusted over the file: it is used only when the file's inode
 * matches and the hashes of the header line and of the last indexed line still match; a file that
 * grew is indexed from where the index ends; any other change (shrunk, same size with a new mtime,
 * replaced) rebuilds it; and every line read through it must carry the id, parent and kind the index
 * says, or the reader falls back to a full read of the file.
 */

/** Entry kinds: what the context projection needs to know about an entry without reading it. */
export const KIND = {
  other: 0,
  message: 1,
  assistant: 2,
  thinking: 3,
  model: 4,
  compaction: 5,
  branchSummary: 6,
  custom: 7,
  customMessage: 8,
  label: 9,
  sessionInfo: 10,
  leafMarker: 11,
  /** A message whose role was not read: it may set the model (an assistant) or not. */
  messageUnknownRole: 12,
} as const;

const KIND_OF_TYPE: Record<string, number> = {
  message: KIND.message,
  thinking_level_change: KIND.thinking,
  model_change: KIND.model,
  compaction: KIND.compaction,
  branch_summary: KIND.branchSummary,
  custom: KIND.custom,
  custom_message: KIND.customMessage,
  label: KIND.label,
  session_info: KIND.sessionInfo,
};

const MAGIC = Buffer.from("STIDX01\n");
const TRAILER = Buffer.from("STIDXEND");
export const CHUNK = 1 << 20;
export const NO_PARENT = -1;
export const DANGLING = -2;

interface LineStamp {
  offset: number;
  length: number;
  hash: string;
}

/** Everything the index knows, in memory. Arrays are indexed by entry number (file order). */
export interface SessionIndex {
  ino: number;
  mtimeMs: number;
  /** Bytes covered: up to and including the last complete line. */
  indexedBytes: number;
  indexedLines: number;
  header: LineStamp;
  lastLine: LineStamp | null;
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

/** Where the index of `sessionPath` lives. */
export function indexPathFor(sessionPath: string): string {
  return `${sessionPath}.idx`;
}

/** Thrown inside the indexer for files it does not index (older formats): callers read the whole file. */
export class NotIndexable extends Error {}

/** Collects entries while scanning; also continues an existing index over appended lines. */
export class IndexBuilder {
  readonly ids: string[] = [];
  readonly parents: number[] = [];
  readonly kinds: number[] = [];
  readonly offsets: number[] = [];
  readonly lengths: number[] = [];
  readonly lines: number[] = [];
  readonly byId = new Map<string, number>();
  readonly parentIds = new Map<number, string>();
  readonly issues: SessionIssue[] = [];
  header: LineStamp | null = null;
  lastLine: LineStamp | null = null;
  leaf = -1;
  private readonly utf8 = new TextDecoder("utf-8", { fatal: true });

  static continuing(index: SessionIndex): IndexBuilder {
    const builder = new IndexBuilder();
    // Element by element: spreading 100,000+ values into push() overflows the argument limit.
    for (let n = 0; n < index.ids.count; n++) {
      const id = index.ids.at(n);
      builder.ids.push(id);
      if (!builder.byId.has(id)) builder.byId.set(id, n);
      builder.parents.push(index.parents[n] as number);
      builder.kinds.push(index.kinds[n] as number);
      builder.offsets.push(index.offsets[n] as number);
      builder.lengths.push(index.lengths[n] as number);
      builder.lines.push(index.lines[n] as number);
    }
    for (const [i, parentId] of Object.entries(index.dangling)) builder.parentIds.set(Number(i), parentId);
    builder.issues.push(...index.issues);
    builder.header = index.header;
    builder.lastLine = index.lastLine;
    builder.leaf = index.leaf;
    return builder;
  }

  onLine(raw: RawLine): void {
    // Hashed once at the end (`scanInto`): hashing every line would cost more than scanning it.
    this.lastLine = { offset: raw.offset, length: raw.bytes.length, hash: "" };
    if (isBlank(raw.bytes)) return;
    if (this.header === null) {
      this.readHeader(raw);
      return;
    }
    const prefix = scanEntryPrefix(raw.bytes);
    if (prefix && prefix.type !== "custom") {
      const kind = prefix.type === "message" ? kindOfRole(prefix.role) : (KIND_OF_TYPE[prefix.type] ?? 0);
      this.add(prefix.id, prefix.parentId, kind, raw);
      return;
    }
    const entry = this.parseEntry(raw);
    if (entry) this.add(entry.id, entry.parentId, kindOfEntry(entry), raw);
  }

  private readHeader(raw: RawLine): void {
    const parsed = this.parse(raw);
    const checked = checkHeader(parsed);
    if (!checked.ok) throw new NotIndexable("no readable header");
    if ((checked.value.version ?? 1) < CURRENT_SESSION_VERSION) throw new NotIndexable("older format");
    this.header = stampOf(raw);
  }

  private parseEntry(raw: RawLine): SessionEntry | null {
    const parsed = this.parse(raw);
    if (parsed === undefined) return null;
    const checked = checkEntry(parsed);
    if (checked.ok) return checked.value;
    this.report("invalid_entry", `Line ${raw.line}: ${checked.reason}`, raw);
    return null;
  }

  private parse(raw: RawLine): unknown {
    let text: string;
    try {
      text = this.utf8.decode(raw.bytes);
    } catch {
      this.report("invalid_utf8", `Line ${raw.line} is not valid UTF-8`, raw);
      return undefined;
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      this.report("invalid_json", `Line ${raw.line} is not JSON: ${(error as Error).message}`, raw);
      return undefined;
    }
  }

  private report(code: SessionIssue["code"], message: string, raw: RawLine): void {
    this.issues.push({ code, severity: "error", message, line: raw.line, offset: raw.offset });
  }

  /** As `SessionTree.load`: the first of a duplicate id wins and the leaf follows storage order. */
  private add(id: string, parentId: string | null, kind: number, raw: RawLine): void {
    if (this.byId.has(id)) return;
    const n = this.ids.length;
    this.byId.set(id, n);
    this.ids.push(id);
    this.kinds.push(kind);
    this.offsets.push(raw.offset);
    this.lengths.push(raw.bytes.length);
    this.lines.push(raw.line);
    const parent = parentId === null ? NO_PARENT : (this.byId.get(parentId) ?? DANGLING);
    this.parents.push(parent);
    if (parent === DANGLING) this.parentIds.set(n, parentId as string);
    // A leaf marker says "the leaf is my parent", if the parent is already known.
    this.leaf = kind === KIND.leafMarker ? (parent >= 0 ? parent : -1) : n;
  }

  finish(ino: number, mtimeMs: number, indexedBytes: number, indexedLines: number): SessionIndex {
    if (!this.header) throw new NotIndexable("no header");
    const dangling: Record<number, string> = {};
    for (const [n, parentId] of this.parentIds) {
      const parent = this.byId.get(parentId);
      if (parent === undefined) dangling[n] = parentId;
      else this.parents[n] = parent;
    }
    return {
      ino,
      mtimeMs,
      indexedBytes,
      indexedLines,
      header: this.header,
      lastLine: this.lastLine,
      leaf: this.leaf,
      ids: IdTable.of(this.ids),
      parents: Int32Array.from(this.parents),
      kinds: Uint8Array.from(this.kinds),
      offsets: Float64Array.from(this.offsets),
      lengths: Uint32Array.from(this.lengths),
      lines: Uint32Array.from(this.lines),
      dangling,
      issues: this.issues,
    };
  }
}

function kindOfRole(role: string | undefined): number {
  if (role === undefined) return KIND.messageUnknownRole;
  return role === "assistant" ? KIND.assistant : KIND.message;
}

export function kindOfEntry(entry: SessionEntry): number {
  if (entry.type === "message") return kindOfRole(entry.message.role);
  if (isLeafMarker(entry)) return KIND.leafMarker;
  return KIND_OF_TYPE[entry.type] ?? KIND.other;
}

function stampOf(raw: RawLine): LineStamp {
  return { offset: raw.offset, length: raw.bytes.length, hash: hashBytes(raw.bytes) };
}

function hashBytes(bytes: Buffer): string {
  return createHash("sha1").update(bytes).digest("base64");
}

/** Scans `fd` from `start` (the whole file, or what was appended after an index) into `builder`. */
export function scanInto(
  builder: IndexBuilder,
  fd: number,
  stats: Stats,
  start = { line: 0, offset: 0 },
): SessionIndex {
  const splitter = new LineSplitter((raw) => builder.onLine(raw), start);
  const buffer = Buffer.allocUnsafe(CHUNK);
  let position = start.offset;
  for (;;) {
    const n = readSync(fd, buffer, 0, CHUNK, position);
    if (n === 0) break;
    splitter.push(buffer.subarray(0, n));
    position += n;
  }
  const last = builder.lastLine;
  if (last && last.hash === "") {
    const bytes = readLine(fd, last.offset, last.length);
    builder.lastLine = bytes === null ? null : { ...last, hash: hashBytes(bytes) };
  }
  return builder.finish(stats.ino, stats.mtimeMs, splitter.completeBytes, splitter.completeLines);
}

// ---- the index file ----

/** Writes the index atomically (temp file, rename). A cache: failing to write it loses nothing. */
export function saveIndex(sessionPath: string, index: SessionIndex): boolean {
  const target = indexPathFor(sessionPath);
  const temp = `${target}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, serializeIndex(index));
    renameSync(temp, target);
    return true;
  } catch {
    // Read-only folder or full disk: the next open indexes again, nothing else depends on it.
    try {
      unlinkSync(temp);
    } catch {}
    return false;
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

/** Reads an index file; null when it is missing, truncated or not an index. */
export function loadIndex(sessionPath: string): SessionIndex | null {
  let file: Buffer;
  try {
    file = readFileSync(indexPathFor(sessionPath));
  } catch {
    return null;
  }
  try {
    return parseIndex(file);
  } catch {
    return null;
  }
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

// ---- keeping the index true to the file ----

export type IndexState = "warm" | "caught-up" | "rebuilt" | "none";

/**
 * The index of the open file `fd`, checked against it: reused when unchanged, extended when lines
 * were appended, rebuilt otherwise (and saved). Null for files it does not index (v1/v2 formats,
 * no readable header): those are read whole.
 */
export function currentIndex(
  sessionPath: string,
  fd: number,
): { index: SessionIndex; state: IndexState } | null {
  const stats = fstatSync(fd);
  const saved = loadIndex(sessionPath);
  try {
    if (saved && saved.ino === stats.ino && stampsHold(fd, stats, saved)) {
      if (saved.indexedBytes === stats.size && saved.mtimeMs === stats.mtimeMs) {
        return { index: saved, state: "warm" };
      }
      if (stats.size > saved.indexedBytes) {
        const start = { line: saved.indexedLines, offset: saved.indexedBytes };
        const index = scanInto(IndexBuilder.continuing(saved), fd, stats, start);
        saveIndex(sessionPath, index);
        return { index, state: "caught-up" };
      }
    }
    const index = scanInto(new IndexBuilder(), fd, stats);
    saveIndex(sessionPath, index);
    return { index, state: "rebuilt" };
  } catch (error) {
    if (error instanceof NotIndexable) return null;
    throw error;
  }
}

/** The header line and the last indexed line are still there, byte for byte. */
function stampsHold(fd: number, stats: Stats, index: SessionIndex): boolean {
  if (stats.size < index.indexedBytes) return false;
  const stamps = index.lastLine ? [index.header, index.lastLine] : [index.header];
  return stamps.every((stamp) => {
    const bytes = Buffer.alloc(stamp.length + 1);
    if (readSync(fd, bytes, 0, bytes.length, stamp.offset) !== bytes.length) return false;
    const newline = bytes[stamp.length] === 10;
    return newline && hashBytes(bytes.subarray(0, stamp.length)) === stamp.hash;
  });
}

/** Opens a session file for reading, with the errors every reader gives. */
export function openForRead(path: string): number {
  try {
    return openSync(path, constants.O_RDONLY);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new NotFoundError("session_not_found", `No session file at ${path}`, { cause: error });
    }
    throw error;
  }
}

/** One line's bytes read at its offset, or null when the file no longer holds them. */
export function readLine(fd: number, offset: number, length: number): Buffer | null {
  const bytes = Buffer.allocUnsafe(length + 1);
  let got = 0;
  while (got < bytes.length) {
    const n = readSync(fd, bytes, got, bytes.length - got, offset + got);
    if (n === 0) return null;
    got += n;
  }
  return bytes[length] === 10 ? bytes.subarray(0, length) : null;
}
