import type { SessionEntry, SessionHeader } from "../../core/entry.js";
import type { BranchSince, EntryPage, SessionSummary, StoredSession } from "../store.js";
import type { FoundSession, ReadTx } from "./driver.js";
import { exportSessionJsonl } from "./jsonl-transfer.js";
import { SessionArchivedSignal } from "./payload-hooks.js";
import { entryNotFound, sessionNotFound } from "./rules.js";
import { type StoreFlow, wait } from "./step.js";

/** Whether a call may see a session: it exists for this owner, and is not deleted unless asked. */
export function isVisible(
  summary: SessionSummary | null,
  includeDeleted: boolean,
): summary is SessionSummary {
  return summary !== null && (summary.deletedAt === null || includeDeleted);
}

/**
 * The session, or `session_not_found`: missing, another owner's and (unless asked) deleted alike.
 * A flow that reads or writes entries (`needsEntries`) of an archived session stops with
 * `SessionArchivedSignal`: the engine restores it and runs the flow again.
 */
export function* findVisible<S>(
  tx: ReadTx<S>,
  sessionId: string,
  includeDeleted: boolean,
  needsEntries = true,
): StoreFlow<FoundSession<S>> {
  const found = yield* wait(tx.find());
  if (!found || !isVisible(found.summary, includeDeleted)) throw sessionNotFound(sessionId);
  if (needsEntries && found.summary.archivedAt) {
    throw new SessionArchivedSignal(found.summary.owner, sessionId);
  }
  return found;
}

export function* loadFlow<S>(
  tx: ReadTx<S>,
  sessionId: string,
  includeDeleted: boolean,
): StoreFlow<StoredSession> {
  const { ref, summary } = yield* findVisible(tx, sessionId, includeDeleted);
  const header = yield* wait(tx.header(ref));
  const entries = yield* wait(tx.entries(ref, 0, null));
  return { summary, header, entries };
}

/** The path root → `leafId` (undefined: the session's leaf; null: empty). */
export function* branchFlow<S>(
  tx: ReadTx<S>,
  sessionId: string,
  leafId: string | null | undefined,
): StoreFlow<SessionEntry[]> {
  const { ref, summary } = yield* findVisible(tx, sessionId, false);
  const start = leafId === undefined ? summary.leafId : leafId;
  if (start === null) return [];
  const path = yield* wait(tx.branch(ref, start));
  if (path.length === 0) throw entryNotFound(sessionId, start);
  return path;
}

/**
 * The path root → `leafId` (undefined: the session's leaf; null: empty) after `knownId`, or whole
 * when `knownId` is not on it: what a reader holding the path up to `knownId` lacks.
 */
export function* branchSinceFlow<S>(
  tx: ReadTx<S>,
  sessionId: string,
  knownId: string | null,
  leafId: string | null | undefined,
): StoreFlow<BranchSince> {
  const { ref, summary } = yield* findVisible(tx, sessionId, false);
  const start = leafId === undefined ? summary.leafId : leafId;
  const read = { leafId: start, revision: summary.revision };
  if (start === null) return { entries: [], complete: true, ...read };
  if (knownId === null) {
    const path = yield* wait(tx.branch(ref, start));
    if (path.length === 0) throw entryNotFound(sessionId, start);
    return { entries: path, complete: true, ...read };
  }
  const tail = yield* wait(tx.branchSince(ref, start, knownId));
  if (!tail.reached && tail.entries.length === 0) throw entryNotFound(sessionId, start);
  return { entries: tail.entries, complete: !tail.reached, ...read };
}

/** One page of entries in storage order; positions are 1-based, so `nextAfter` is the last one read. */
export function* entryPageFlow<S>(
  tx: ReadTx<S>,
  sessionId: string,
  page: { after: number; limit: number },
): StoreFlow<EntryPage> {
  const { ref, summary } = yield* findVisible(tx, sessionId, false);
  const entries = yield* wait(tx.entries(ref, page.after, page.limit));
  const end = page.after + entries.length;
  return { entries, nextAfter: end < summary.entryCount ? end : null };
}

export function* exportFlow<S>(tx: ReadTx<S>, sessionId: string): StoreFlow<string> {
  const { header, entries, summary } = yield* loadFlow(tx, sessionId, false);
  return exportSessionJsonl(header, entries, summary.leafId);
}

/** What a paged read of the whole session starts from: its summary and header, as one snapshot. */
export function* headFlow<S>(
  tx: ReadTx<S>,
  sessionId: string,
): StoreFlow<{ summary: SessionSummary; header: SessionHeader }> {
  const { ref, summary } = yield* findVisible(tx, sessionId, false);
  const header = yield* wait(tx.header(ref));
  return { summary, header };
}

/** Whether the session has the entry: one lookup, whatever the session's size. */
export function* hasEntryFlow<S>(tx: ReadTx<S>, sessionId: string, entryId: string): StoreFlow<boolean> {
  const { ref } = yield* findVisible(tx, sessionId, false);
  return yield* wait(tx.hasEntry(ref, entryId));
}
