import {
  closeSync,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  type Stats,
  statSync,
  unlinkSync,
} from "node:fs";
import { basename, join } from "node:path";
import { CURRENT_SESSION_VERSION, type SessionHeader } from "../core/entry.js";
import { cachePathFor, writeCacheFile } from "../file/cache-dir.js";
import { checkStamp, type FileStamp, statMatches, takeStamp } from "../file/file-stamp.js";
import { readFromFd, readSessionFileOrNull } from "../file/read-file.js";
import { dropCachedIndex } from "../file/sidecar-index.js";
import { SessionDecoder } from "../format/jsonl/decode.js";
import { type ListingShape, listingShapeOf } from "./listing-shape.js";
import {
  addToSummary,
  emptySummary,
  infoFrom,
  readSessionInfo,
  type SessionInfo,
  type SummaryState,
} from "./session-info.js";

/**
 * The session catalog of one folder: what a listing shows of each session file, so that listing
 * does not re-read files that did not change. Kept in sessiontree's cache directory
 * (file/cache-dir.ts), `<cache>/catalog/<hash of the folder's path>/`, never in the folder itself
 * (often another tool's: a listing writes nothing there): `catalog.json` (one record per file,
 * keyed by name) and `texts-*.dat` (the files' message text, one file per listing pass that found
 * changes, read only when a caller asks for `allMessagesText`, e.g. to search; compacted when there
 * are many). The `.sessiontree-catalog/` folders earlier versions left in session folders are not
 * read.
 *
 * A record is only a cache of the file and is never trusted over it: its stamp (file/file-stamp.ts)
 * is checked on every listing. It is used when the file's inode, size and mtime are the ones
 * recorded; a file that only grew (same inode, same first and last covered bytes) is read from
 * where the record stops; anything else is read again in full. A missing or unreadable catalog is
 * rebuilt; failing to save it (no writable cache) loses nothing.
 */
const CATALOG_FILE = "catalog.json";
/** 2: records carry a file stamp; catalogs of another version are rebuilt. */
const CATALOG_VERSION = 2;
/** How many bytes at each end of the covered part are hashed to detect an edit behind our back. */
const STAMP_BYTES = 4096;
/** More text files than this and the live texts are rewritten into one. */
const MAX_TEXT_FILES = 16;

interface CatalogRecord {
  /** The file as read: `covered` is where reading stopped (after the last complete line). */
  stamp: FileStamp;
  /** null: not a session file (pi skips those too); remembered so junk is not re-read. */
  header: SessionHeader | null;
  /** Format version on disk; older formats are always read in full (they are migrated in memory). */
  version: number;
  /** Lines read: up to the last complete line. */
  readLines: number;
  summary: Omit<SummaryState, "texts">;
  textCount: number;
  /** Where the message text is, in pieces (a file that grew adds a piece). */
  text: TextSegment[];
  /**
   * The tree's counts over the covered bytes (`sessiontree ls`). Set by a whole read; a file that
   * grew is extended without it (a new entry may branch anywhere), and `shape()` reads it again.
   */
  shape?: ListingShape;
}

interface TextSegment {
  file: string;
  offset: number;
  bytes: number;
}

interface CatalogData {
  version: number;
  records: Record<string, CatalogRecord>;
}

export interface CatalogStats {
  reused: number;
  extended: number;
  read: number;
  removed: number;
}

/** The catalog of one folder, loaded for one listing pass. */
export class FolderCatalog {
  readonly stats: CatalogStats = { reused: 0, extended: 0, read: 0, removed: 0 };
  private readonly data: CatalogData;
  private readonly seen = new Set<string>();
  private readonly texts: TextStore;
  private changed = false;

  private readonly cacheDir: string;

  constructor(readonly folder: string) {
    this.cacheDir = catalogDirOf(folder);
    this.data = loadCatalog(join(this.cacheDir, CATALOG_FILE));
    this.texts = new TextStore(this.cacheDir);
  }

  /** The listing line of one session file in this folder, or null when it is not a session. */
  info(path: string): SessionInfo | null {
    const name = basename(path);
    this.seen.add(name);
    let stats: Stats;
    try {
      stats = statSync(path);
    } catch {
      return null;
    }
    const record = this.data.records[name];
    if (record && statMatches(record.stamp, stats)) {
      this.stats.reused++;
      return this.toInfo(path, record, stats);
    }
    const refreshed = this.refresh(path, record);
    if (refreshed === undefined) return readSessionInfo(path);
    const { record: fresh, text, appendText } = refreshed;
    fresh.text = [...(appendText ? fresh.text : []), ...this.texts.add(text)];
    this.data.records[name] = fresh;
    this.changed = true;
    return this.toInfo(path, fresh, stats);
  }

  /**
   * The tree's counts of a file `info` just answered for: from the record when it has them, else
   * from a whole read of the file (kept when it covers what the record does).
   */
  shape(path: string): ListingShape | null {
    const record = this.data.records[basename(path)];
    if (record?.shape) return record.shape;
    const decoded = readSessionFileOrNull(path);
    if (!decoded?.header) return null;
    const shape = listingShapeOf(
      decoded.entries.map((e) => e.entry),
      decoded.issues.length,
    );
    if (record && decoded.completeBytes === record.stamp.covered) {
      record.shape = shape;
      this.changed = true;
    }
    return shape;
  }

  /** Writes the catalog back if anything changed, forgetting files that are gone. */
  save(): void {
    for (const name of Object.keys(this.data.records)) {
      if (this.seen.has(name)) continue;
      delete this.data.records[name];
      this.stats.removed++;
      this.changed = true;
      // The session is gone: so is the use of its sidecar index (file/sidecar-index.ts).
      dropCachedIndex(join(this.folder, name));
    }
    if (!this.changed) return;
    const records = Object.values(this.data.records);
    if (new Set(records.flatMap((r) => r.text.map((t) => t.file))).size > MAX_TEXT_FILES) {
      for (const record of records) record.text = this.texts.add(this.texts.read(record.text) ?? "");
    }
    // A cache that cannot be written is not saved at all: this pass's listing keeps its text in
    // memory (records pointing into a text file that was never written would read as "").
    if (!this.texts.flush()) return;
    saveCatalog(join(this.cacheDir, CATALOG_FILE), this.data);
    this.texts.removeAllBut(new Set(records.flatMap((r) => r.text.map((t) => t.file))));
  }

  private refresh(
    path: string,
    record: CatalogRecord | undefined,
  ): { record: CatalogRecord; text: string; appendText: boolean } | undefined {
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch {
      return undefined;
    }
    try {
      const stats = fstatSync(fd);
      if (record && canExtend(fd, record, stats)) {
        this.stats.extended++;
        return extend(fd, record, stats);
      }
      this.stats.read++;
      return readWhole(fd, stats);
    } catch {
      return undefined;
    } finally {
      closeSync(fd);
    }
  }

  private toInfo(path: string, record: CatalogRecord, stats: Stats): SessionInfo | null {
    if (!record.header) return null;
    const info = infoFrom(path, record.header, record.summary, stats.mtime, "");
    let text: string | undefined;
    // The message text is large and rarely needed: read on first use, checked against the record.
    Object.defineProperty(info, "allMessagesText", {
      enumerable: true,
      configurable: true,
      get: () => {
        text ??= this.texts.read(record.text) ?? readSessionInfo(path)?.allMessagesText ?? "";
        return text;
      },
      set: (value: string) => {
        text = value;
      },
    });
    return info;
  }
}

/** The file only grew (the bytes we covered are unchanged) and is in the current format. */
function canExtend(fd: number, record: CatalogRecord, stats: Stats): boolean {
  if (!record.header || record.version < CURRENT_SESSION_VERSION) return false;
  return checkStamp(record.stamp, fd, stats) === "grew";
}

function extend(
  fd: number,
  record: CatalogRecord,
  stats: Stats,
): { record: CatalogRecord; text: string; appendText: boolean } {
  const covered = record.stamp.covered;
  const decoder = new SessionDecoder({ line: record.readLines, offset: covered });
  const decoded = readFromFd(fd, covered, decoder);
  const state = addToSummary(
    { ...record.summary, texts: [] },
    decoded.entries.map((e) => e.entry),
  );
  const added = state.texts.join(" ");
  const delta = record.textCount > 0 && state.texts.length > 0 ? ` ${added}` : added;
  const { texts, ...summary } = state;
  const { shape: _stale, ...rest } = record;
  const next: CatalogRecord = {
    ...rest,
    stamp: stampOf(fd, stats, decoded.completeBytes),
    readLines: decoded.completeLines,
    summary,
    textCount: record.textCount + texts.length,
  };
  return { record: next, text: delta, appendText: true };
}

function readWhole(fd: number, stats: Stats): { record: CatalogRecord; text: string; appendText: boolean } {
  const decoded = readFromFd(fd, 0, new SessionDecoder());
  const state = addToSummary(
    emptySummary(),
    decoded.entries.map((e) => e.entry),
  );
  const { texts, ...summary } = state;
  const entries = decoded.entries.map((e) => e.entry);
  const text = decoded.header ? texts.join(" ") : "";
  const record: CatalogRecord = {
    stamp: stampOf(fd, stats, decoded.completeBytes),
    header: decoded.header,
    version: decoded.migratedFrom ?? CURRENT_SESSION_VERSION,
    readLines: decoded.completeLines,
    summary,
    textCount: texts.length,
    text: [],
    shape: decoded.header ? listingShapeOf(entries, decoded.issues.length) : undefined,
  };
  return { record, text, appendText: false };
}

/** The stamp of a file read up to `covered`: its first and last 4 KiB before there are hashed. */
function stampOf(fd: number, stats: Stats, covered: number): FileStamp {
  return takeStamp(fd, stats, { covered, head: STAMP_BYTES, tail: STAMP_BYTES });
}

/**
 * Message texts of one folder: each listing pass that read something writes one new file, records
 * point into it. Nothing is trusted: a piece must have its recorded length, or it is read again
 * from the session file.
 */
class TextStore {
  private pending: Buffer[] = [];
  private size = 0;
  private name: string | null = null;
  private written = true;

  constructor(private readonly dir: string) {}

  /** Queues `text` for this pass's file; returns where it will be. */
  add(text: string): TextSegment[] {
    if (text === "") return [];
    const bytes = Buffer.from(text, "utf8");
    this.name ??= `texts-${uniqueSuffix()}.dat`;
    const segment = { file: this.name, offset: this.size, bytes: bytes.length };
    this.pending.push(bytes);
    this.size += bytes.length;
    this.written = false;
    return [segment];
  }

  /** Writes this pass's file; false when it could not be written (its pieces are then dropped). */
  flush(): boolean {
    if (this.written || this.name === null) return true;
    this.written = writeCacheFile(join(this.dir, this.name), Buffer.concat(this.pending, this.size));
    return this.written;
  }

  read(segments: readonly TextSegment[]): string | null {
    const parts: Buffer[] = [];
    for (const segment of segments) {
      const pending = segment.file === this.name && !this.written;
      const bytes = pending ? this.pendingSlice(segment) : readSegment(join(this.dir, segment.file), segment);
      if (bytes === null) return null;
      parts.push(bytes);
    }
    return Buffer.concat(parts).toString("utf8");
  }

  private pendingSlice(segment: TextSegment): Buffer {
    return Buffer.concat(this.pending, this.size).subarray(segment.offset, segment.offset + segment.bytes);
  }

  /** Deletes text files no record points to. */
  removeAllBut(live: ReadonlySet<string>): void {
    let names: string[] = [];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith("texts-") && name.endsWith(".dat") && !live.has(name))
        removeQuietly(join(this.dir, name));
    }
  }
}

/**
 * A name no other pass takes: the process id and time keep concurrent passes apart, the random part
 * passes of one process in one millisecond. Not a secret, so `sessiontree ls` need not load
 * node:crypto for it (see "How the command is put together" in docs/cli.md).
 */
function uniqueSuffix(): string {
  const random = Math.floor(Math.random() * 2 ** 32)
    .toString(16)
    .padStart(8, "0");
  return `${process.pid.toString(16)}-${Date.now().toString(16)}-${random}`;
}

function readSegment(path: string, segment: TextSegment): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  try {
    const bytes = Buffer.alloc(segment.bytes);
    return readSync(fd, bytes, 0, bytes.length, segment.offset) === bytes.length ? bytes : null;
  } finally {
    closeSync(fd);
  }
}

function loadCatalog(path: string): CatalogData {
  try {
    const data = JSON.parse(readFileSync(path, "utf8")) as CatalogData;
    if (data.version === CATALOG_VERSION && typeof data.records === "object" && data.records !== null) {
      // A record without its stamp cannot be checked against its file: that file is read again.
      for (const [name, record] of Object.entries(data.records))
        if (typeof record?.stamp !== "object" || record.stamp === null) delete data.records[name];
      return data;
    }
  } catch {
    // Missing or damaged: rebuilt from the files.
  }
  return { version: CATALOG_VERSION, records: {} };
}

/** A torn catalog fails to parse and is rebuilt; one that cannot be written lists by reading the files. */
function saveCatalog(path: string, data: CatalogData): void {
  writeCacheFile(path, JSON.stringify(data));
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

/** Where the catalog of `folder` is kept. */
export function catalogDirOf(folder: string): string {
  return cachePathFor("catalog", folder);
}

/** Removes a folder's catalog (it is rebuilt by the next listing). */
export function dropCatalog(folder: string): void {
  const dir = catalogDirOf(folder);
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) removeQuietly(join(dir, name));
}
