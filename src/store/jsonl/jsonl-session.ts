import { statSync } from "node:fs";
import type { SessionFile } from "../../file/session-file.js";
import type { SessionSummary } from "../store.js";
import { applyEntries, type DerivedFields, initialSummary } from "../summary.js";
import { metaDescribes, readMeta, revisionOf, type SessionMeta } from "./jsonl-store-layout.js";
import { syncLeafToFile } from "./jsonl-store-leaf.js";

/** A session file as one read or write sees it: the file (caught up), its sidecar, its summary. */
export interface JsonlSession {
  path: string;
  file: SessionFile;
  meta: SessionMeta | null;
  summary: SessionSummary;
}

/**
 * The session as the file and its sidecar say now. The sidecar's counts and modification time are
 * used only while it describes as many lines as the file holds: an append stays O(batch), and lines
 * another writer (pi) added are counted from the file.
 */
export function snapshotOf(owner: string, path: string, file: SessionFile): JsonlSession {
  const meta = readMeta(path);
  const lines = file.tree.getStoredEntries().length;
  const current = meta !== null && meta.lines === lines;
  const modifiedAt = current ? meta.modifiedAt : statSync(path).mtime.toISOString();
  const base = initialSummary(owner, file.header, modifiedAt);
  const derived = current ? derivedFrom(meta.cache) : applyEntries(base, file.tree.getEntries());
  const summary: SessionSummary = {
    ...base,
    ...derived,
    revision: revisionOf(meta, lines),
    leafId: syncLeafToFile(file.tree),
    deletedAt: meta?.deletedAt ?? null,
  };
  return { path, file, meta, summary };
}

/** A list row from the sidecar alone, while it still describes the file (same file, same size); else null. */
export function summaryFromSidecar(owner: string, path: string): SessionSummary | null {
  const meta = readMeta(path);
  if (!meta || !metaDescribes(meta, statSync(path))) return null;
  const base = initialSummary(owner, meta.header, meta.modifiedAt);
  return { ...base, ...meta.cache, revision: meta.revision, deletedAt: meta.deletedAt };
}

function derivedFrom(cache: SessionMeta["cache"]): DerivedFields {
  const { entryCount, messageCount, firstMessage, name } = cache;
  return { entryCount, messageCount, firstMessage, name };
}
