import { closeSync, fstatSync, readSync } from "node:fs";
import { type ProjectedContext, projectContext } from "../core/context.js";
import type { CompactionEntry, SessionEntry, SessionHeader } from "../core/entry.js";
import { CorruptSessionError } from "../core/errors.js";
import type { SessionIssue } from "../core/issues.js";
import { SessionTree } from "../core/tree.js";
import { checkEntry, checkHeader } from "../core/validate.js";
import { readSessionFile } from "../file/read-file.js";
import {
  CHUNK,
  currentIndex,
  DANGLING,
  IndexBuilder,
  type IndexState,
  KIND,
  kindOfEntry,
  NO_PARENT,
  NotIndexable,
  openForRead,
  readLine,
  type SessionIndex,
  saveIndex,
  scanInto,
} from "../file/sidecar-index.js";
import { isBlank } from "../format/jsonl/lines.js";

/**
 * Resume through the sidecar index: the leaf's path and the model's context, reading only the
 * lines the context needs. It lives in the session layer because choosing those lines, and
 * projecting them, is context logic; the index itself (file/sidecar-index.ts) knows only
 * ids, parents, kinds and byte offsets.
 */

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
  /**
   * What the index covers and which ids it holds, for appending without reading the whole file;
   * null when the whole file was read.
   */
  coverage: IndexCoverage | null;
}

export interface IndexCoverage {
  inode: number;
  /** Bytes and lines up to and including the last indexed line. */
  bytes: number;
  lines: number;
  /** Whether an entry of the indexed lines has this id. */
  hasId(id: string): boolean;
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
  return resumeThroughIndex(sessionPath) ?? readWhole(sessionPath);
}

/**
 * `openPathOnly` when the sidecar index can serve it (created or refreshed on the way); null when it
 * cannot (an older format, no readable header, an index that does not hold even when rebuilt), so
 * the caller reads the whole file its own way.
 */
export function resumeThroughIndex(sessionPath: string): PathOnlySession | null {
  const fd = openForRead(sessionPath);
  try {
    const found = currentIndex(sessionPath, fd);
    if (!found) return null;
    const result = readThroughIndex(fd, found.index, found.state);
    if (result) return result;
    // The index did not match the file: build it again from the file and try once more.
    const rebuilt = scanInto(new IndexBuilder(), fd, fstatSync(fd));
    saveIndex(sessionPath, rebuilt);
    return readThroughIndex(fd, rebuilt, "rebuilt");
  } catch (error) {
    if (error instanceof NotIndexable) return null;
    throw error;
  } finally {
    closeSync(fd);
  }
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
    coverage: coverageOf(index),
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

function coverageOf(index: SessionIndex): IndexCoverage {
  // 100,000 ids as a set cost a few milliseconds: made when the first append asks.
  let ids: Set<string> | undefined;
  return {
    inode: index.ino,
    bytes: index.indexedBytes,
    lines: index.indexedLines,
    hasId: (id) => {
      ids ??= new Set(index.ids.toArray());
      return ids.has(id);
    },
  };
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
    coverage: null,
  };
}
