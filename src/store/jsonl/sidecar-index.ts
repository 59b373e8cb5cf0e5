import { createHash } from "node:crypto";
import {
  closeSync,
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
import { type ProjectedContext, projectContext } from "../../core/context.js";
import {
  type CompactionEntry,
  CURRENT_SESSION_VERSION,
  isLeafMarker,
  type SessionEntry,
  type SessionHeader,
} from "../../core/entry.js";
import { CorruptSessionError, NotFoundError } from "../../core/errors.js";
import type { SessionIssue } from "../../core/issues.js";
import { SessionTree } from "../../core/tree.js";
import { checkEntry, checkHeader } from "../../core/validate.js";
import { isBlank, LineSplitter, type RawLine, scanEntryPrefix } from "../../format/jsonl/lines.js";
import { readSessionFile } from "./read-file.js";

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
const CHUNK = 1 << 20;
const NO_PARENT = -1;
const DANGLING = -2;

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
class NotIndexable extends Error {}

/** Collects entries while scanning; also continues an existing index over appended lines. */
class IndexBuilder {
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

function kindOfEntry(entry: SessionEntry): number {
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
function scanInto(
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

// ---- resume: the leaf's path and its context, reading only the lines the context needs ----

/** One entry of the leaf's path as the index knows it (its content is read only when needed). */
export interface PathRef {
  id: string;
  parentId: string | null;
  /** The entry's kind, a key of `KIND`. */
  kind: string;
  line: number;
  offset: number;
}

export interface PathOnlySession {
  header: SessionHeader;
  leafId: string | null;
  /** The leaf's path, root → leaf. */
  path: PathRef[];
  /** The path entries that were read: every one the context needs, in path order. */
  entries: SessionEntry[];
  context: ProjectedContext;
  /**
   * Problems on the lines that were parsed, and a torn tail. Lines the indexer only scanned (ids and
   * parents) are not validated here: a full open or `fsck` reports their damage.
   */
  issues: SessionIssue[];
  /** How the index was found; "none": the whole file was read (older format, or the index did not hold). */
  index: IndexState;
}

const KIND_NAMES = Object.fromEntries(Object.entries(KIND).map(([name, code]) => [code, name]));

/**
 * Resume: the header, the leaf, its path and its context, reading only the lines the context needs
 * (after the last compaction, plus the latest thinking level, model and extension state) through
 * the sidecar index, which is created or refreshed on the way. Gives the same leaf, path ids and
 * context as a full read; when anything the index says does not hold, it rebuilds the index, and
 * failing that reads the whole file.
 *
 * @example
 * const { context, leafId } = openPathOnly(file);
 */
export function openPathOnly(sessionPath: string): PathOnlySession {
  const fd = openForRead(sessionPath);
  try {
    const found = currentIndex(sessionPath, fd);
    if (found) {
      const result = readThroughIndex(fd, found.index, found.state);
      if (result) return result;
      // The index did not match the file: build it again from the file and try once more.
      const stats = fstatSync(fd);
      const rebuilt = scanInto(new IndexBuilder(), fd, stats);
      saveIndex(sessionPath, rebuilt);
      const retried = readThroughIndex(fd, rebuilt, "rebuilt");
      if (retried) return retried;
    }
  } catch (error) {
    if (!(error instanceof NotIndexable)) throw error;
  } finally {
    closeSync(fd);
  }
  return readWhole(sessionPath);
}

function readThroughIndex(fd: number, index: SessionIndex, state: IndexState): PathOnlySession | null {
  const headerLine = readLine(fd, index.header.offset, index.header.length);
  const header = headerLine === null ? null : checkHeader(JSON.parse(headerLine.toString("utf8")));
  if (!header?.ok) return null;
  const path = walkToRoot(index);
  if (path === null) return null;
  const reader = new IndexedReader(fd, index);
  const wanted = linesForContext(index, path, reader);
  if (wanted === null || !reader.readAll(wanted)) return null;
  const entries = wanted.map((n) => reader.parsed.get(n) as SessionEntry);
  const result = {
    header: header.value,
    leafId: index.leaf < 0 ? null : index.ids.at(index.leaf),
    entries,
    context: projectContext(entries),
    issues: [...index.issues, ...tornTail(fd, index)],
    index: state,
  } as PathOnlySession;
  // 70,000 path records cost more than the rest of a warm resume: made when first asked for.
  let refs: PathRef[] | undefined;
  Object.defineProperty(result, "path", {
    enumerable: true,
    get: () => {
      refs ??= path.map((n) => refOf(index, n));
      return refs;
    },
  });
  return result;
}

/** Entry numbers root → leaf; null when the parent chain loops (the full reader reports the cycle). */
function walkToRoot(index: SessionIndex): number[] | null {
  const path: number[] = [];
  let budget = index.ids.count;
  for (let n = index.leaf; n >= 0; n = index.parents[n] as number) {
    if (--budget < 0) return null;
    path.push(n);
  }
  return path.reverse();
}

/**
 * The path entries `projectContext` needs to give the same result as on the whole path: everything
 * from the last compaction's first kept entry on, the latest thinking level change, the latest model
 * setter (and any message whose role is unknown after it), and every custom entry (extension state).
 */
function linesForContext(index: SessionIndex, path: number[], reader: IndexedReader): number[] | null {
  const kindAt = (i: number) => index.kinds[path[i] as number] as number;
  let start = 0;
  let compactionAt = -1;
  for (let i = path.length - 1; i >= 0 && compactionAt < 0; i--)
    if (kindAt(i) === KIND.compaction) compactionAt = i;
  if (compactionAt >= 0) {
    const compaction = reader.readOne(path[compactionAt] as number) as CompactionEntry | null;
    if (compaction === null) return null;
    // Ids are unique on a path, so searching back from the compaction finds pi's first match, soon.
    let kept = compactionAt - 1;
    while (kept >= 0 && index.ids.at(path[kept] as number) !== compaction.firstKeptEntryId) kept--;
    start = kept >= 0 ? kept : compactionAt;
  }
  const wanted = new Set<number>();
  for (let i = start - 1; i >= 0; i--) {
    if (kindAt(i) === KIND.thinking) {
      wanted.add(i);
      break;
    }
  }
  for (let i = start - 1; i >= 0; i--) {
    const kind = kindAt(i);
    if (kind === KIND.messageUnknownRole || kind === KIND.model || kind === KIND.assistant) wanted.add(i);
    if (kind === KIND.model || kind === KIND.assistant) break;
  }
  for (let i = 0; i < start; i++) if (kindAt(i) === KIND.custom) wanted.add(i);
  const positions = [...wanted].sort((a, b) => a - b);
  for (let i = start; i < path.length; i++) positions.push(i);
  return positions.map((i) => path[i] as number);
}

/** Reads and checks indexed lines with positioned reads, coalescing neighbours into one read. */
class IndexedReader {
  readonly parsed = new Map<number, SessionEntry>();
  private readonly utf8 = new TextDecoder("utf-8", { fatal: true });

  constructor(
    private readonly fd: number,
    private readonly index: SessionIndex,
  ) {}

  readOne(n: number): SessionEntry | null {
    return this.readAll([n]) ? (this.parsed.get(n) as SessionEntry) : null;
  }

  /** False when a line is not what the index says (or not a valid entry any more). */
  readAll(numbers: readonly number[]): boolean {
    const todo = numbers.filter((n) => !this.parsed.has(n));
    todo.sort((a, b) => (this.index.offsets[a] as number) - (this.index.offsets[b] as number));
    let i = 0;
    while (i < todo.length) {
      const first = todo[i] as number;
      let last = i;
      while (last + 1 < todo.length && this.closeEnough(first, todo[last + 1] as number)) last++;
      if (!this.readRange(todo.slice(i, last + 1))) return false;
      i = last + 1;
    }
    return true;
  }

  private closeEnough(first: number, next: number): boolean {
    const { offsets, lengths } = this.index;
    const end = (offsets[next] as number) + (lengths[next] as number);
    return end - (offsets[first] as number) <= 4 * CHUNK;
  }

  private readRange(group: number[]): boolean {
    const { offsets, lengths } = this.index;
    const start = offsets[group[0] as number] as number;
    const lastOne = group[group.length - 1] as number;
    const bytes = readLine(
      this.fd,
      start,
      (offsets[lastOne] as number) + (lengths[lastOne] as number) - start,
    );
    if (bytes === null) return false;
    for (const n of group) {
      const at = (offsets[n] as number) - start;
      const line = bytes.subarray(at, at + (lengths[n] as number));
      const entry = this.parse(line);
      if (entry === null || !this.matches(n, entry)) return false;
      this.parsed.set(n, entry);
    }
    return true;
  }

  private parse(line: Buffer): SessionEntry | null {
    try {
      const checked = checkEntry(JSON.parse(this.utf8.decode(line)));
      return checked.ok ? checked.value : null;
    } catch {
      return null;
    }
  }

  /** The line holds the entry the index says: same id, parent and kind. */
  private matches(n: number, entry: SessionEntry): boolean {
    const { ids, parents, kinds, dangling } = this.index;
    const parent = parents[n] as number;
    const parentId = parent === NO_PARENT ? null : parent === DANGLING ? dangling[n] : ids.at(parent);
    const kind = kinds[n] as number;
    const actual = kindOfEntry(entry);
    const kindOk = kind === actual || (kind === KIND.messageUnknownRole && entry.type === "message");
    return entry.id === ids.at(n) && entry.parentId === parentId && kindOk;
  }
}

/** `length` bytes at `offset`, which must be followed by a newline; null when the file says otherwise. */
function readLine(fd: number, offset: number, length: number): Buffer | null {
  const bytes = Buffer.allocUnsafe(length + 1);
  let got = 0;
  while (got < bytes.length) {
    const n = readSync(fd, bytes, got, bytes.length - got, offset + got);
    if (n === 0) return null;
    got += n;
  }
  return bytes[length] === 10 ? bytes.subarray(0, length) : null;
}

function refOf(index: SessionIndex, n: number): PathRef {
  const parent = index.parents[n] as number;
  return {
    id: index.ids.at(n),
    parentId:
      parent === NO_PARENT
        ? null
        : parent === DANGLING
          ? (index.dangling[n] as string)
          : index.ids.at(parent),
    kind: KIND_NAMES[index.kinds[n] as number] as string,
    line: index.lines[n] as number,
    offset: index.offsets[n] as number,
  };
}

/** Bytes after the last complete line, reported as the full reader does. */
function tornTail(fd: number, index: SessionIndex): SessionIssue[] {
  const size = fstatSync(fd).size;
  if (size <= index.indexedBytes) return [];
  const tail = Buffer.alloc(size - index.indexedBytes);
  readSync(fd, tail, 0, tail.length, index.indexedBytes);
  if (isBlank(tail)) return [];
  const line = index.indexedLines + 1;
  return [
    {
      code: "torn_tail",
      severity: "warning",
      message: `Line ${line} (${tail.length} bytes) has no newline: an interrupted write, not part of the session`,
      line,
      offset: index.indexedBytes,
    },
  ];
}

/** The full read, for files the index does not cover: the same answer, the slow way. */
function readWhole(sessionPath: string): PathOnlySession {
  const decoded = readSessionFile(sessionPath);
  if (!decoded.header) {
    throw new CorruptSessionError("invalid_header", `${sessionPath}: no readable session header`, {
      details: { path: sessionPath, issues: decoded.issues.slice(0, 20) },
    });
  }
  const tree = new SessionTree();
  const positions = new Map<string, { line: number; offset: number }>();
  for (const { entry, line, offset } of decoded.entries) {
    if (tree.load(entry, { line, offset }) === "added") positions.set(entry.id, { line, offset });
  }
  const entries = tree.getBranch();
  return {
    header: decoded.header,
    leafId: tree.getLeafId(),
    path: entries.map((entry) => ({
      id: entry.id,
      parentId: entry.parentId,
      kind: KIND_NAMES[kindOfEntry(entry)] as string,
      line: positions.get(entry.id)?.line ?? 0,
      offset: positions.get(entry.id)?.offset ?? 0,
    })),
    entries,
    context: projectContext(entries),
    issues: [...decoded.issues, ...tree.getIssues()],
    index: "none",
  };
}
