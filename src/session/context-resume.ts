import { type ProjectedContext, projectContext } from "../core/context.js";
import type { CompactionEntry, SessionEntry, SessionHeader } from "../core/entry.js";
import { CorruptSessionError } from "../core/errors.js";
import type { SessionIssue } from "../core/issues.js";
import { SessionTree } from "../core/tree.js";
import { type IndexCoverage, type IndexedReader, readThroughIndex } from "../file/indexed-reader.js";
import { readSessionFile } from "../file/read-file.js";
import type { IndexState } from "../file/sidecar-index.js";
import { contextRoleOfKind, isSettingKind, KIND, kindName, kindOfEntry } from "../file/sidecar-index-kind.js";
import {
  parentIdOf,
  pathToLeaf,
  type SessionIndex,
  startsAtMissingParent,
} from "../file/sidecar-index-model.js";

/**
 * Resuming a session's context from the fewest lines: which entries of the leaf's path the model's
 * context needs, read through the sidecar index (file/indexed-reader.ts), and projected. Choosing
 * those entries is context logic, so it lives here; the file layer only reads and checks lines.
 * (The session manager's mode that appends after such a resume is another module.)
 */

/** One entry of the leaf's path as the index knows it (its content is read only when needed). */
export interface PathRef {
  id: string;
  parentId: string | null;
  /** The entry's kind: its type (`"compaction"`), or the index's own name (`"assistant"`, see `KIND`). */
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

/**
 * Resume: the header, the leaf, its path and its context, reading only the lines the context needs
 * (after the last compaction, plus the latest settings and extension state) through the sidecar
 * index, which is created or refreshed on the way. Gives the same leaf, path ids and context as a
 * full read; when anything the index says does not hold, it rebuilds the index, and failing that
 * reads the whole file.
 *
 * @example
 * const { context, leafId } = openPathOnly(file);
 */
export function openPathOnly(sessionPath: string): PathOnlySession {
  return resumeThroughIndex(sessionPath) ?? readWhole(sessionPath);
}

/**
 * `openPathOnly` when the sidecar index can serve it; null when it cannot (an older format, no
 * readable header, a path that starts at a missing parent, an index that does not hold even when
 * rebuilt), so the caller reads the whole file its own way.
 */
export function resumeThroughIndex(sessionPath: string, options: ResumeOptions = {}): PathOnlySession | null {
  try {
    return readThroughIndex(sessionPath, (reader, state) => resumeFrom(reader, state, options));
  } catch (error) {
    if (error instanceof WholeReadInstead) return null;
    throw error;
  }
}

export interface ResumeOptions {
  /**
   * Give up (null) when the lines the context needs hold more than this share of the file's
   * bytes: a caller that will want the whole tree anyway (the session manager) then reads the
   * file once, whole, instead of most of it line by line now and all of it again later.
   */
  wholeAboveShare?: number;
}

/**
 * Thrown out of a read through the index when the whole read must answer: it is the better deal,
 * or the index cannot give its answer (rebuilding the index would not change that).
 */
class WholeReadInstead extends Error {}

function resumeFrom(
  reader: IndexedReader,
  state: IndexState,
  options: ResumeOptions,
): PathOnlySession | null {
  const index = reader.index;
  const header = reader.header();
  if (header === null) return null;
  const limit =
    options.wholeAboveShare === undefined ? undefined : options.wholeAboveShare * index.indexedBytes;
  if (limit !== undefined && surelyNeedsMoreThan(index, limit)) throw new WholeReadInstead();
  const path = pathToLeaf(index);
  if (path === null) return null;
  // The path starts at an entry whose parent the index does not hold: a record the indexer did not
  // see (damage it cannot read as the whole read does) may be that parent. The whole read then
  // says where the path starts; the index must never make the context silently shorter.
  if (startsAtMissingParent(index, path)) throw new WholeReadInstead();
  const wanted = linesForContext(index, path, reader);
  if (wanted !== null && limit !== undefined) {
    let bytes = 0;
    for (const n of wanted) bytes += index.lengths[n] as number;
    if (bytes > limit) throw new WholeReadInstead();
  }
  const entries = wanted === null ? null : reader.entries(wanted);
  if (entries === null) return null;
  const tail = reader.tornTail();
  // Whole records on a last line with no newline belong to the session, and the index stops
  // before them (it holds complete lines): the whole read takes them in.
  if (tail.some((issue) => issue.code === "unterminated_line")) return null;
  const result = {
    header,
    leafId: index.leaf < 0 ? null : index.ids.at(index.leaf),
    entries,
    context: projectContext(entries),
    issues: [...index.issues, ...tail],
    index: state,
    coverage: reader.coverage(),
  } as PathOnlySession;
  // 70,000 path records cost more than the rest of a warm resume: made when first asked for.
  let refs: PathRef[] | undefined;
  Object.defineProperty(result, "path", {
    enumerable: true,
    get: () => {
      refs ??= Array.from(path, (n) => refOf(index, n));
      return refs;
    },
  });
  return result;
}

/**
 * The path entries `projectContext` needs to give the same result as on the whole path: everything
 * from the last compaction's first kept entry on; before that, the latest entry of each setting
 * kind (and any message whose role is unknown after the latest assistant's: it may be one) and
 * every extension entry. Which kinds those are comes from core's `CONTEXT_ROLES`. `path` is entry
 * numbers, root → the entry the context is at (the leaf for a resume; any node in the viewer).
 * Null when the compaction's line is not what the index says.
 */
export function linesForContext(
  index: SessionIndex,
  path: ArrayLike<number>,
  reader: IndexedReader,
): number[] | null {
  const kinds = index.kinds; // a local: one field read per entry of a 70,000-entry path added up
  const kindAt = (i: number) => kinds[path[i] as number] as number;
  let start = 0;
  let compactionAt = -1;
  for (let i = path.length - 1; i >= 0 && compactionAt < 0; i--)
    if (contextRoleOfKind(kindAt(i)) === "compaction") compactionAt = i;
  if (compactionAt >= 0) {
    const compaction = reader.entry(path[compactionAt] as number) as CompactionEntry | null;
    if (compaction === null) return null;
    // Ids are unique on a path, so searching back from the compaction finds pi's first match, soon.
    let kept = compactionAt - 1;
    while (kept >= 0 && index.ids.at(path[kept] as number) !== compaction.firstKeptEntryId) kept--;
    start = kept >= 0 ? kept : compactionAt;
  }
  const before = entriesBefore(start, kindAt);
  for (let i = start; i < path.length; i++) before.push(i);
  return before.map((i) => path[i] as number);
}

/**
 * Whether the lines the context needs surely hold more than `limit` bytes: the leaf's path back to
 * its last compaction, all of which the context reads (`linesForContext`), summed from the leaf up
 * and given up on at the first compaction. The index's columns only, stopping once over: a
 * 200,000-entry chain the caller will read whole learns so in a millisecond, not in the tens of
 * milliseconds of listing its path and lines first.
 */
function surelyNeedsMoreThan(index: SessionIndex, limit: number): boolean {
  const { parents, lengths, kinds } = index;
  let bytes = 0;
  let budget = index.ids.count; // a cycle in a damaged index ends the walk
  for (let n = index.leaf; n >= 0 && --budget >= 0; n = parents[n] as number) {
    bytes += lengths[n] as number;
    if (bytes > limit) return true;
    if (contextRoleOfKind(kinds[n] as number) === "compaction") return false;
  }
  return false;
}

/** Positions before `start` (ascending) whose entries still count after it: see `linesForContext`. */
function entriesBefore(start: number, kindAt: (i: number) => number): number[] {
  const wanted: number[] = [];
  const settingsFound = new Set<number>();
  for (let i = start - 1; i >= 0; i--) {
    const kind = kindAt(i);
    if (contextRoleOfKind(kind) === "extension") wanted.push(i);
    else if (isSettingKind(kind)) {
      if (!settingsFound.has(kind)) wanted.push(i);
      settingsFound.add(kind);
    } else if (kind === KIND.messageUnknownRole && !settingsFound.has(KIND.assistant)) wanted.push(i);
  }
  return wanted.reverse();
}

function refOf(index: SessionIndex, n: number): PathRef {
  return {
    id: index.ids.at(n),
    parentId: parentIdOf(index, n),
    kind: kindName(index.kinds[n] as number),
    line: index.lines[n] as number,
    offset: index.offsets[n] as number,
  };
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
      kind: kindName(kindOfEntry(entry)),
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
