import { closeSync, fstatSync, openSync, type Stats, statSync } from "node:fs";
import { CURRENT_SESSION_VERSION, isLeafMarker, type SessionEntry } from "../../core/entry.js";
import type { SearchHit } from "../../core/search-hit.js";
import { searchableText, searchKind } from "../../core/search-text.js";
import { isWellFormed } from "../../core/validate.js";
import { checkStamp, type FileStamp, statMatches, takeStamp } from "../../file/file-stamp.js";
import { readFromFd } from "../../file/read-file.js";
import { SessionDecoder } from "../../format/jsonl/decode.js";
import { FILE_SPAN, type SearchDatabase } from "./index-db.js";
import { scopeToken } from "./query.js";
import { camelPartsText } from "./tokens.js";

/** What a refresh did to one file's part of the index. */
export type RefreshOutcome = "unchanged" | "extended" | "read" | "gone";

/** The kinds of `SearchHit`, by the code the index keeps. */
export const HIT_KINDS: readonly SearchHit["kind"][] = [
  "user",
  "assistant",
  "toolResult",
  "custom",
  "summary",
];

/** How many bytes at each end of the part read are hashed into the stamp (as the catalog does). */
const STAMP_BYTES = 4096;

/** A file's row as the refresh checks it (the large columns are read only to extend it). */
export interface FileRowHead {
  id: number;
  path: string;
  /** `statKey` of the stat its stamp was taken with. */
  stat: string;
  version: number;
}

interface FileRow extends FileRowHead {
  stamp: string;
  lines: number;
  name: string | null;
  count: number;
  leaf: number;
  ids: string;
  parent_ids: string;
}

/**
 * What a stat alone says of a file the index knows (or not): `"unchanged"` when it matches the stamp,
 * `"gone"` when it is not there any more, `"changed"` when it must be read (`refreshFile`).
 */
export function statCheck(path: string, known: FileRowHead | undefined): "unchanged" | "gone" | "changed" {
  let stats: Stats | undefined;
  try {
    stats = statSync(path, { throwIfNoEntry: false });
  } catch {
    return "gone";
  }
  if (stats === undefined) return "gone";
  return known && statKey(stats) === known.stat ? "unchanged" : "changed";
}

/**
 * What `statMatches` compares (inode, size, mtime), as one string kept beside the stamp: every
 * search checks every file, and comparing strings spares parsing 2,000 stamps' JSON.
 */
export function statKey(stats: Pick<Stats, "ino" | "size" | "mtimeMs">): string {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}

/**
 * Brings the index of one file up to date, in one write transaction: the lines after the part read
 * when it only grew (same inode, first and last bytes read unchanged, current format); everything
 * again otherwise; its rows dropped when it is gone. Lines are read by the file layer's decoder, so
 * torn tails, glued records and damaged lines are what every reader makes of them: a torn tail is
 * not indexed until it is finished.
 */
export function refreshFile(db: SearchDatabase, path: string): RefreshOutcome {
  return db.transaction(() => updateFile(db, path)).immediate();
}

/** Removes a file's rows (its entries, its text in the full-text index, its record). */
export function dropFile(db: SearchDatabase, id: number): void {
  const [from, to] = [id * FILE_SPAN, (id + 1) * FILE_SPAN - 1];
  db.prepare("DELETE FROM fts WHERE rowid BETWEEN ? AND ?").run(from, to);
  db.prepare("DELETE FROM entries WHERE rowid BETWEEN ? AND ?").run(from, to);
  db.prepare("DELETE FROM files WHERE id = ?").run(id);
}

/** Inside the write transaction: another process may have brought the file up to date meanwhile. */
function updateFile(db: SearchDatabase, path: string): RefreshOutcome {
  const row = db.prepare("SELECT * FROM files WHERE path = ?").get(path) as FileRow | undefined;
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    if (row) dropFile(db, row.id);
    return "gone";
  }
  try {
    const stats = fstatSync(fd);
    const stamp = row ? (JSON.parse(row.stamp) as FileStamp) : undefined;
    if (row && stamp && statMatches(stamp, stats)) return "unchanged";
    if (row && stamp && row.version === CURRENT_SESSION_VERSION && checkStamp(stamp, fd, stats) === "grew") {
      extendFile(db, fd, stats, row, stamp);
      return "extended";
    }
    if (row) dropFile(db, row.id);
    readWholeFile(db, fd, stats, path);
    return "read";
  } finally {
    closeSync(fd);
  }
}

function extendFile(db: SearchDatabase, fd: number, stats: Stats, row: FileRow, stamp: FileStamp): void {
  const pass = new FilePass(db, row.id, row);
  const decoder = new SessionDecoder({ line: row.lines, offset: stamp.covered }, pass.sink);
  const decoded = readFromFd(fd, stamp.covered, decoder);
  db.prepare(
    `UPDATE files SET stamp = ?, stat = ?, lines = ?, name = ?, count = ?, leaf = ?, ids = ?,
     parent_ids = ?, parents = ? WHERE id = ?`,
  ).run(
    JSON.stringify(stampOf(fd, stats, decoded.completeBytes)),
    statKey(stats),
    decoded.completeLines,
    pass.name,
    pass.count,
    pass.leaf,
    pass.ids.join("\n"),
    pass.parentIds.join("\n"),
    pass.parentPositions(),
    row.id,
  );
}

function readWholeFile(db: SearchDatabase, fd: number, stats: Stats, path: string): void {
  // The row first: its id numbers the entries' rowids.
  const { lastInsertRowid } = db
    .prepare(
      `INSERT INTO files (path, stamp, stat, lines, version, count, leaf, ids, parent_ids, parents)
       VALUES (?, '{}', '', 0, 0, 0, -1, '', '', x'')`,
    )
    .run(path);
  const id = Number(lastInsertRowid);
  const pass = new FilePass(db, id);
  const decoded = readFromFd(fd, 0, new SessionDecoder(undefined, pass.sink));
  const header = decoded.header;
  // Not a session (no header: junk, another tool's file): remembered empty, so it is not read again.
  if (header === null) dropEntries(db, id);
  db.prepare(
    `UPDATE files SET stamp = ?, stat = ?, lines = ?, version = ?, session_id = ?, cwd = ?, name = ?,
     count = ?, leaf = ?, ids = ?, parent_ids = ?, parents = ? WHERE id = ?`,
  ).run(
    JSON.stringify(stampOf(fd, stats, decoded.completeBytes)),
    statKey(stats),
    decoded.completeLines,
    header === null ? 0 : (decoded.migratedFrom ?? CURRENT_SESSION_VERSION),
    header?.id ?? null,
    header === null ? null : typeof header.cwd === "string" ? header.cwd : "",
    header === null ? null : pass.name,
    header === null ? 0 : pass.count,
    header === null ? -1 : pass.leaf,
    header === null ? "" : pass.ids.join("\n"),
    header === null ? "" : pass.parentIds.join("\n"),
    header === null ? Buffer.alloc(0) : pass.parentPositions(),
    id,
  );
}

function dropEntries(db: SearchDatabase, id: number): void {
  const [from, to] = [id * FILE_SPAN, (id + 1) * FILE_SPAN - 1];
  db.prepare("DELETE FROM fts WHERE rowid BETWEEN ? AND ?").run(from, to);
  db.prepare("DELETE FROM entries WHERE rowid BETWEEN ? AND ?").run(from, to);
}

/** The stamp of a file read up to `covered`: its first and last 4 KiB before there are hashed. */
function stampOf(fd: number, stats: Stats, covered: number): FileStamp {
  return takeStamp(fd, stats, { covered, head: STAMP_BYTES, tail: STAMP_BYTES });
}

/**
 * One reading of a file's lines (all of them, or those after the part read before): keeps the
 * tree as `SessionTree.load` would (a duplicate id is ignored, the leaf is the last entry read, a
 * leaf marker puts it on the marker's parent, the last `session_info` names the session) and
 * indexes each searchable entry as it is decoded.
 */
class FilePass {
  readonly ids: string[];
  readonly parentIds: string[];
  private readonly positionOf = new Map<string, number>();
  name: string | null;
  leaf: number;
  private readonly insertText;
  private readonly insertEntry;

  constructor(
    db: SearchDatabase,
    private readonly fileId: number,
    before?: FileRow,
  ) {
    this.ids = before && before.count > 0 ? before.ids.split("\n") : [];
    this.parentIds = before && before.count > 0 ? before.parent_ids.split("\n") : [];
    for (let i = 0; i < this.ids.length; i++) this.positionOf.set(this.ids[i] as string, i);
    this.name = before?.name ?? null;
    this.leaf = before?.leaf ?? -1;
    this.insertText = db.prepare("INSERT INTO fts (rowid, body, parts, scope) VALUES (?, ?, ?, ?)");
    this.insertEntry = db.prepare(
      "INSERT INTO entries (rowid, entry_id, kind, ts, line, offset) VALUES (?, ?, ?, ?, ?, ?)",
    );
  }

  get count(): number {
    return this.ids.length;
  }

  readonly sink = (entry: SessionEntry, line: number, offset: number): void => {
    if (this.positionOf.has(entry.id)) return;
    const position = this.ids.length;
    this.ids.push(entry.id);
    this.parentIds.push(entry.parentId ?? "");
    this.positionOf.set(entry.id, position);
    if (isLeafMarker(entry))
      this.leaf = entry.parentId === null ? -1 : (this.positionOf.get(entry.parentId) ?? -1);
    else this.leaf = position;
    if (entry.type === "session_info" && isWellFormed(entry)) this.name = entry.name?.trim() || null;
    this.index(entry, position, line, offset);
  };

  private index(entry: SessionEntry, position: number, line: number, offset: number): void {
    const kind = searchKind(entry);
    if (kind === null || position >= FILE_SPAN) return;
    const text = searchableText(entry);
    if (text === "") return;
    const rowid = this.fileId * FILE_SPAN + position;
    this.insertText.run(rowid, text, camelPartsText(text), scopeToken(this.fileId));
    this.insertEntry.run(rowid, entry.id, HIT_KINDS.indexOf(kind), entry.timestamp, line, offset);
  }

  /** Each entry's parent position (-1: a root, or a parent not in the file), as 32-bit integers. */
  parentPositions(): Buffer {
    const parents = new Int32Array(this.ids.length);
    for (let i = 0; i < parents.length; i++) {
      const parentId = this.parentIds[i] as string;
      parents[i] = parentId === "" ? -1 : (this.positionOf.get(parentId) ?? -1);
    }
    return Buffer.from(parents.buffer, parents.byteOffset, parents.byteLength);
  }
}
