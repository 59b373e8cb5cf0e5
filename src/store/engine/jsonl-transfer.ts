import {
  CURRENT_SESSION_VERSION,
  LEAF_MARKER_TYPE,
  type SessionEntry,
  type SessionHeader,
} from "../../core/entry.js";
import { CorruptSessionError, ValidationError } from "../../core/errors.js";
import { newSessionId } from "../../core/session-id.js";
import { stampDraft } from "../../core/stamp.js";
import { SessionTree } from "../../core/tree.js";
import { decodeSession } from "../../format/jsonl/decode.js";
import { encodeLine, encodeSession } from "../../format/jsonl/encode.js";
import type { ImportOptions } from "../store.js";
import { planAppend } from "./append-plan.js";
import { requireSafeSessionId } from "./rules.js";
import { validateBatch } from "./validate-batch.js";

/**
 * A session as a pi v3 JSONL file: header, entries in storage order, and, when the leaf is not the
 * last entry, a leaf marker under it, so both pi (last line = leaf) and sessiontree (marker = "my
 * parent is the leaf") reopen the file at the same leaf.
 */
export function exportSessionJsonl(
  header: SessionHeader,
  entries: readonly SessionEntry[],
  leafId: string | null,
): string {
  const text = encodeSession({ ...header, version: CURRENT_SESSION_VERSION }, entries);
  const marker = leafMarkerFor(entries, leafId);
  return marker ? text + encodeLine(marker) : text;
}

/** The leaf marker a file needs so that reading it lands on `leafId` (null when the last entry is the leaf). */
export function leafMarkerFor(entries: readonly SessionEntry[], leafId: string | null): SessionEntry | null {
  const last = entries[entries.length - 1];
  if (!last || last.id === leafId) return null;
  return leafMarkerAfter(last, leafId, new Set(entries.map((entry) => entry.id)));
}

/** The same, from the last entry and every id of the file (a paged export keeps no entry list). */
export function leafMarkerAfter(
  last: SessionEntry | undefined,
  leafId: string | null,
  taken: ReadonlySet<string>,
): SessionEntry | null {
  if (!last || last.id === leafId) return null;
  return stampDraft({ type: "custom", customType: LEAF_MARKER_TYPE }, leafId, {
    isTaken: (id) => taken.has(id),
  });
}

/** A parsed import, checked by the same rules as an append of the whole file into an empty session. */
export interface ImportedSession {
  header: SessionHeader;
  entries: SessionEntry[];
  leafId: string | null;
}

/**
 * Reads a pi JSONL file (v1–v3, migrated to v3 by the format layer). Unlike opening a file, an import
 * is all or nothing: a damaged line, a conflicting duplicate or a parent that is not earlier in the
 * file refuses the import (with the issues in `details`) instead of storing half a session.
 */
export function parseImport(jsonl: string, options: ImportOptions = {}): ImportedSession {
  const decoded = decodeSession(jsonl);
  if (!decoded.header) {
    throw new CorruptSessionError("not_a_session", "The file has no readable session header", {
      details: { issues: decoded.issues },
    });
  }
  const errors = decoded.issues.filter((issue) => issue.severity === "error");
  if (errors.length > 0) {
    throw new ValidationError("invalid_entry", `The file has ${errors.length} unreadable line(s)`, {
      details: { issues: errors },
    });
  }
  const tree = new SessionTree();
  for (const { entry, line, offset } of decoded.entries) {
    if (tree.load(entry, { line, offset }) === "conflict") {
      throw new ValidationError(
        "duplicate_entry",
        `Line ${line}: entry ${entry.id} appears twice with different content`,
        {
          details: { line, id: entry.id },
        },
      );
    }
  }
  const entries = validateBatch(tree.getEntries(), { history: true });
  planAppend(entries, new Map(), null, true); // throws on a parent that is not earlier in the file
  const header: SessionHeader = { ...decoded.header, version: CURRENT_SESSION_VERSION };
  header.id = options.newId ? newSessionId() : requireSafeSessionId(header.id);
  return { header, entries, leafId: tree.getLeafId() };
}
