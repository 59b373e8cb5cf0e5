import { closeSync, openSync, readSync, statSync } from "node:fs";
import { SessionTreeError } from "../core/errors.js";
import { type SniffedFile, sniffSessionText } from "../format/sniff.js";

/**
 * What a file a command was pointed at is, and the one refusal the read-only commands (`show`,
 * `tree`, `export`, `fsck`) give for a file they cannot read as a session: an empty file (a read
 * never invents a session; `SessionManager.open` may start one there, as pi does), or another
 * tool's session (import it first).
 */

/** The stable codes of those refusals (`--json`: `error.code`, fsck: the finding's code). */
export type FileKindCode = "empty_session_file" | "foreign_session_file";

export class FileKindError extends SessionTreeError {
  constructor(
    code: FileKindCode,
    message: string,
    /** The message without the path: fsck's finding. */
    readonly finding: string,
    readonly file: SniffedFile,
  ) {
    super(code, message, {
      details: { kind: file.kind, description: file.description },
    });
  }
}

/** How much of a file is read to tell what it is; the rest is only counted, and only when needed. */
const HEAD_BYTES = 256 * 1024;
/**
 * Read first: enough for a pi header line (about 150 bytes). A file whose first line is one is a
 * pi session whatever follows, so the usual case needs neither the 256 KiB read nor the parse of
 * the sample's lines (on every `tree`, `show`, `export`).
 */
const QUICK_BYTES = 4 * 1024;

/** What the file at `path` is; undefined when it cannot be read (the command's own read says why). */
export function inspectFile(path: string): SniffedFile | undefined {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return undefined;
  }
  if (size === 0) return sniffSessionText("");
  if (size > QUICK_BYTES) {
    const quick = sniffHeaderLine(readHead(path, QUICK_BYTES));
    if (quick?.kind === "pi") return quick;
  }
  const head = readHead(path, Math.min(size, HEAD_BYTES));
  if (size <= HEAD_BYTES) return sniffSessionText(head);
  const first = sniffSessionText(head, { partial: true });
  // A pi session is the command's own business; anything else is described with its full count.
  if (first.kind === "pi") return first;
  return sniffSessionText(head, { partial: true, totalRecords: countRecords(path) });
}

/** The refusal for a file no read-only command can show, or undefined when it may be read as a session. */
export function refusalFor(path: string, file: SniffedFile | undefined): FileKindError | undefined {
  if (file === undefined) return undefined;
  const what = whatItIs(path, file);
  if (what === undefined) return undefined;
  return new FileKindError(what.code, `${path} is ${what.finding}`, what.finding, file);
}

/** The code and the path-less sentence for a file that is not a session to read, else undefined. */
function whatItIs(path: string, file: SniffedFile): { code: FileKindCode; finding: string } | undefined {
  if (file.kind === "empty")
    return { code: "empty_session_file", finding: `${file.description}, not a session: nothing to read` };
  if (file.kind === "claude-code" || file.kind === "codex")
    return {
      code: "foreign_session_file",
      finding: `${file.description}, not a sessiontree or pi session: import it with \`sessiontree import ${path}\``,
    };
  return undefined;
}

/** Throws the refusal for a file a read-only command cannot show; else what the file is. */
export function refuseUnreadable(path: string): SniffedFile | undefined {
  const file = inspectFile(path);
  const refusal = refusalFor(path, file);
  if (refusal) throw refusal;
  return file;
}

/** The sniff of the first line alone, when the head holds a whole one. */
function sniffHeaderLine(head: string): SniffedFile | undefined {
  const end = head.indexOf("\n");
  return end === -1 ? undefined : sniffSessionText(head.slice(0, end + 1), { partial: true });
}

function readHead(path: string, bytes: number): string {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    const n = readSync(fd, buffer, 0, bytes, 0);
    return buffer.toString("utf8", 0, n);
  } finally {
    closeSync(fd);
  }
}

/** Non-blank lines of the whole file, read in chunks (never the whole file in memory). */
function countRecords(path: string): number {
  const fd = openSync(path, "r");
  const buffer = Buffer.allocUnsafe(1 << 20);
  let records = 0;
  let blank = true;
  try {
    for (let position = 0; ; ) {
      const n = readSync(fd, buffer, 0, buffer.length, position);
      if (n === 0) break;
      position += n;
      for (let i = 0; i < n; i++) {
        const byte = buffer[i] as number;
        if (byte === 10) {
          if (!blank) records++;
          blank = true;
        } else if (byte !== 32 && byte !== 9 && byte !== 13) blank = false;
      }
    }
  } finally {
    closeSync(fd);
  }
  return blank ? records : records + 1;
}
