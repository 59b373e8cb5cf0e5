import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { SessionHeader } from "../core/entry.js";
import { CorruptSessionError, SessionTreeError } from "../core/errors.js";
import type { SessionIssue } from "../core/issues.js";
import { SessionTree } from "../core/tree.js";
import { type DecodedSession, SessionDecoder } from "../format/jsonl/decode.js";
import { openExisting, readFromFd } from "./read-file.js";

/** A decoded session file that has a header: one that can be opened. */
export type DecodedWithHeader = DecodedSession & { header: SessionHeader };

/** What a read into a tree gives besides the tree: the entries are in the tree, not in a list. */
export type DecodedIntoTree = Omit<DecodedSession, "entries">;

/**
 * What one reader knows of a session file: its header and tree, the problems met reading it, and
 * how far it has read (the end of the last complete line, which is where the next lines start).
 * Read whole at first and whenever the file may no longer be what was read (`reload`); extended
 * with what other writers appended (`readAppended`) and with our own lines (`wrote`).
 */
export class SessionContents {
  tree = new SessionTree();
  issues: SessionIssue[] = [];
  /** Bytes and lines read, up to and including the last complete line (or whole last records: `endsMidLine`). */
  bytes = 0;
  lines = 0;
  /** The file ends with records whose line has no newline yet: the next write starts with one. */
  endsMidLine = false;

  /** `tree` holds the entries of `decoded`, loaded while it was read (`readIntoTree`). */
  constructor(
    readonly path: string,
    public header: SessionHeader,
    public inode: number,
    decoded: DecodedIntoTree,
    tree: SessionTree,
  ) {
    this.adopt(decoded, tree, inode);
  }

  /** Reads the open file `fd` again from its start, keeping our place in the conversation if it still exists. */
  reload(fd: number, inode: number): void {
    const { decoded, tree } = readIntoTree(fd);
    if (!decoded.header) throw headerError(this.path, decoded, tree.size);
    const leaf = this.tree.getLeafId();
    this.header = decoded.header;
    this.adopt(decoded, tree, inode);
    this.tree.restoreLeaf(leaf);
  }

  /**
   * Reads the lines appended after what was read into the tree, without moving the leaf: other
   * writers' entries join the conversation's tree, not its path. A torn tail is not reported here:
   * under the lock it is moved aside (and reported then), otherwise its writer may still finish it.
   */
  readAppended(fd: number): void {
    const tree = this.tree;
    const decoder = new SessionDecoder({ line: this.lines, offset: this.bytes }, (entry, line, offset) =>
      tree.loadAt(entry, line, offset, true),
    );
    const decoded = readFromFd(fd, this.bytes, decoder);
    this.issues.push(...decoded.issues.filter((issue) => !FILE_END_CODES.has(issue.code)));
    this.bytes = decoded.completeBytes;
    this.lines = decoded.completeLines;
    this.endsMidLine = decoded.endsMidLine;
  }

  /** Our own lines reached the file (their entries are in the tree already), after a newline ending the last line's when it had none. */
  wrote(bytes: number, lines: number): void {
    this.bytes += bytes;
    this.lines += lines;
    this.endsMidLine = false;
  }

  private adopt(decoded: DecodedIntoTree, tree: SessionTree, inode: number): void {
    this.tree = tree;
    // A torn tail is the session's problem until a write moves it aside; a last line without its newline is not one.
    this.issues = decoded.issues.filter((issue) => issue.code !== "unterminated_line");
    this.bytes = decoded.completeBytes;
    this.lines = decoded.completeLines;
    this.endsMidLine = decoded.endsMidLine;
    this.inode = inode;
  }
}

/**
 * Reads the open file `fd` whole, loading each entry into a new tree as it is decoded: each line
 * is parsed once and no second list of the entries is kept (`decoded.entries` stays empty).
 */
export function readIntoTree(fd: number): { decoded: DecodedIntoTree; tree: SessionTree } {
  const tree = new SessionTree();
  const decoder = new SessionDecoder(undefined, (entry, line, offset) => tree.loadAt(entry, line, offset));
  return { decoded: readFromFd(fd, 0, decoder), tree };
}

/** Issues about how the file ends (a torn tail, a last line without newline), which the next write changes. */
const FILE_END_CODES = new Set<SessionIssue["code"]>(["torn_tail", "unterminated_line"]);

/**
 * Reads a whole session file to open it, into a tree; a file that is not a session is an error,
 * and is left alone.
 */
export function readForOpen(path: string): {
  decoded: DecodedIntoTree & { header: SessionHeader };
  tree: SessionTree;
  inode: number;
} {
  const fd = openExisting(path);
  let decoded: DecodedIntoTree;
  let tree: SessionTree;
  let inode: number;
  try {
    inode = fstatSync(fd).ino;
    ({ decoded, tree } = readIntoTree(fd));
  } catch (error) {
    throw new SessionTreeError("io_error", `Cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
      details: { path },
    });
  } finally {
    closeSync(fd);
  }
  if (!decoded.header) throw headerError(path, decoded, tree.size);
  return { decoded: { ...decoded, header: decoded.header }, tree, inode };
}

/**
 * Why a file cannot be opened: `not_a_session` when nothing in it is a session (empty, another
 * kind of file), `invalid_header` when it holds a session whose header is damaged or missing.
 */
function headerError(path: string, decoded: DecodedIntoTree, entries: number): CorruptSessionError {
  const headerIssue = decoded.issues.find((i) => i.code === "invalid_header" || i.code === "missing_header");
  if (entries === 0 && !firstLineClaimsSession(path)) {
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
