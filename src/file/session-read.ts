import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { SessionHeader } from "../core/entry.js";
import { CorruptSessionError, SessionTreeError } from "../core/errors.js";
import type { SessionIssue } from "../core/issues.js";
import { SessionTree } from "../core/tree.js";
import { type DecodedSession, SessionDecoder } from "../format/jsonl/decode.js";
import { openExisting, readFromFd } from "./read-file.js";

/** A decoded session file that has a header: one that can be opened. */
export type DecodedWithHeader = DecodedSession & { header: SessionHeader };

/**
 * What one reader knows of a session file: its header and tree, the problems met reading it, and
 * how far it has read (the end of the last complete line, which is where the next lines start).
 * Read whole at first and whenever the file may no longer be what was read (`reload`); extended
 * with what other writers appended (`readAppended`) and with our own lines (`wrote`).
 */
export class SessionContents {
  tree = new SessionTree();
  issues: SessionIssue[] = [];
  /** Bytes and lines read, up to and including the last complete line. */
  bytes = 0;
  lines = 0;

  constructor(
    readonly path: string,
    public header: SessionHeader,
    public inode: number,
    decoded: DecodedSession,
  ) {
    this.adopt(decoded, inode);
  }

  /** Reads the open file `fd` again from its start, keeping our place in the conversation if it still exists. */
  reload(fd: number, inode: number): void {
    const decoded = readFromFd(fd, 0, new SessionDecoder());
    if (!decoded.header) throw headerError(this.path, decoded);
    const leaf = this.tree.getLeafId();
    this.header = decoded.header;
    this.adopt(decoded, inode);
    this.tree.restoreLeaf(leaf);
  }

  /**
   * Reads the lines appended after what was read into the tree, without moving the leaf: other
   * writers' entries join the conversation's tree, not its path. A torn tail is not reported here:
   * under the lock it is moved aside (and reported then), otherwise its writer may still finish it.
   */
  readAppended(fd: number): void {
    const decoder = new SessionDecoder({ line: this.lines, offset: this.bytes });
    const decoded = readFromFd(fd, this.bytes, decoder);
    for (const { entry, line, offset } of decoded.entries)
      this.tree.load(entry, { line, offset }, { keepLeaf: true });
    this.issues.push(...decoded.issues.filter((issue) => issue.code !== "torn_tail"));
    this.bytes = decoded.completeBytes;
    this.lines = decoded.completeLines;
  }

  /** Our own lines reached the file (their entries are in the tree already). */
  wrote(bytes: number, lines: number): void {
    this.bytes += bytes;
    this.lines += lines;
  }

  private adopt(decoded: DecodedSession, inode: number): void {
    const tree = new SessionTree();
    for (const { entry, line, offset } of decoded.entries) tree.load(entry, { line, offset });
    this.tree = tree;
    this.issues = decoded.issues;
    this.bytes = decoded.completeBytes;
    this.lines = decoded.completeLines;
    this.inode = inode;
  }
}

/** Reads a whole session file to open it; a file that is not a session is an error, and is left alone. */
export function readForOpen(path: string): { decoded: DecodedWithHeader; inode: number } {
  const fd = openExisting(path);
  let decoded: DecodedSession;
  let inode: number;
  try {
    inode = fstatSync(fd).ino;
    decoded = readFromFd(fd, 0, new SessionDecoder());
  } catch (error) {
    throw new SessionTreeError("io_error", `Cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
      details: { path },
    });
  } finally {
    closeSync(fd);
  }
  if (!decoded.header) throw headerError(path, decoded);
  return { decoded: decoded as DecodedWithHeader, inode };
}

/**
 * Why a file cannot be opened: `not_a_session` when nothing in it is a session (empty, another
 * kind of file), `invalid_header` when it holds a session whose header is damaged or missing.
 */
function headerError(path: string, decoded: DecodedSession): CorruptSessionError {
  const headerIssue = decoded.issues.find((i) => i.code === "invalid_header" || i.code === "missing_header");
  if (decoded.entries.length === 0 && !firstLineClaimsSession(path)) {
    const what = headerIssue ? "holds no session" : "is empty";
    return new CorruptSessionError("not_a_session", `${path} ${what}: not a session file`, {
      details: { path },
    });
  }
  return new CorruptSessionError(
    "invalid_header",
    `${path}: ${headerIssue?.message ?? "no session header"}`,
    {
      details: { path, issues: decoded.issues.slice(0, 20) },
    },
  );
}

/** Whether line 1 is, or was meant to be, a session header (a damaged one still names its type). */
function firstLineClaimsSession(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(4096);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.toString("utf8", 0, n).split("\n", 1)[0] ?? "";
    return /"type"\s*:\s*"sess/.test(text);
  } finally {
    closeSync(fd);
  }
}
