import { statSync } from "node:fs";
import { headerVersion, type SessionHeader } from "../core/entry.js";
import { NotFoundError } from "../core/errors.js";
import type { SessionIssue } from "../core/issues.js";
import { SessionTree } from "../core/tree.js";
import type { DecodedSession } from "../format/jsonl/decode.js";
import { readSessionFile } from "./read-file.js";

export interface FsckReport {
  path: string;
  /** True when nothing of severity "error" was found (torn tails and identical duplicates are not errors). */
  ok: boolean;
  bytes: number;
  header: SessionHeader | null;
  /** The version on disk (1 for files without one). */
  version: number;
  /** Entries in the tree (duplicates collapsed), leaf markers included. */
  entries: number;
  leafId: string | null;
  /** Bytes after the last newline, and how many whole entries they hold (which `repair` keeps). */
  tornTail: { offset: number; bytes: number; entries: number } | null;
  issues: SessionIssue[];
}

/** Checks a session file and reports every problem with its place. Never writes. */
export function fsckFile(path: string): FsckReport {
  let bytes: number;
  try {
    bytes = statSync(path).size;
  } catch (error) {
    throw new NotFoundError("session_not_found", `No session file at ${path}`, {
      cause: error,
      details: { path },
    });
  }
  const decoded = readSessionFile(path);
  const tree = treeOf(decoded);
  const issues = [...decoded.issues, ...tree.getIssues()];
  if (
    !decoded.header &&
    bytes > 0 &&
    !issues.some((i) => i.code === "invalid_header" || i.code === "missing_header")
  ) {
    issues.unshift({
      code: "missing_header",
      severity: "error",
      message: "The file holds no session header",
    });
  }
  return {
    path,
    ok: decoded.header !== null && !issues.some((issue) => issue.severity === "error"),
    bytes,
    header: decoded.header,
    version: decoded.migratedFrom ?? headerVersion(decoded.header ?? {}),
    entries: tree.size,
    leafId: tree.getLeafId(),
    tornTail: decoded.tornTail
      ? {
          offset: decoded.tornTail.offset,
          bytes: decoded.tornTail.bytes.length,
          entries: decoded.tornTail.entries.length,
        }
      : null,
    issues,
  };
}

/**
 * Whether an issue is a finding: something wrong with the file (an error or a warning), as opposed
 * to a note (an identical duplicate, a torn tail already moved aside).
 */
export function isFinding(issue: SessionIssue): boolean {
  return issue.severity === "error" || issue.severity === "warning";
}

/** The tree of a decoded file, entries loaded with their positions so duplicates are reported with them. */
export function treeOf(decoded: DecodedSession): SessionTree {
  const tree = new SessionTree();
  for (const { entry, line, offset } of decoded.entries) tree.load(entry, { line, offset });
  return tree;
}
