import type { SessionEntry } from "../../core/entry.js";
import { nowIso } from "../../core/ids.js";
import type { SearchTexts } from "../search/search-docs.js";
import type {
  AppendOptions,
  AppendResult,
  SessionSummary,
  TxSql,
  WriteOptions,
  WriteOutcome,
  WriteResult,
} from "../store.js";
import { applyEntries } from "../summary.js";
import { hangUnderLeaf, idsToLookUp, planAppend } from "./append-plan.js";
import type { FoundSession, StoredId, WriteTx } from "./driver.js";
import { findVisible } from "./read-flows.js";
import { changed, checkRevision, entryNotFound, writeResult } from "./rules.js";
import { type DriverStep, type StoreFlow, wait } from "./step.js";

const NOTHING_STORED: ReadonlyMap<string, StoredId> = new Map();

/**
 * An append, inside the session's write: look up the batch's ids and parents, hang it under the
 * leaf when asked, plan, and write only when something is new (a pure retry gets no revision check).
 */
export function* appendFlow<S>(
  tx: WriteTx<S>,
  sessionId: string,
  batch: readonly SessionEntry[],
  options: AppendOptions,
  /** Runs inside the write just before new entries are stored (blob claims, see payload-hooks.ts). */
  beforeInsert?: (ref: S) => StoreFlow<void>,
  /** The batch's search texts before offload (see `captureSearchTexts`). */
  searchTexts?: SearchTexts,
): StoreFlow<WriteOutcome<AppendResult>> {
  const { ref, summary } = yield* findVisible(tx, sessionId, false);
  const lookup = idsToLookUp(batch, options.underLeaf ? summary.leafId : null);
  const stored = lookup.length > 0 ? yield* wait(tx.entriesByIds(ref, lookup)) : NOTHING_STORED;
  const placed = options.underLeaf ? hangUnderLeaf(batch, stored, summary.leafId) : batch;
  const plan = planAppend(placed, stored, summary.leafId, options.moveLeaf ?? true);
  const report = { appended: plan.toInsert.map((entry) => entry.id), skipped: plan.skipped };
  if (!plan.changed) return { result: { ...writeResult(summary), ...report }, changed: false, summary };
  checkRevision(options.expectedRevision, summary.revision);
  if (beforeInsert) yield* beforeInsert(ref);
  yield* wait(tx.insertEntries(ref, plan.toInsert, summary.entryCount, searchTexts));
  const next = changed(summary, { ...applyEntries(summary, plan.toInsert), leafId: plan.leafId });
  yield* wait(tx.updateSession(ref, next));
  return { result: { ...writeResult(next), ...report }, changed: true, summary: next };
}

export function* setLeafFlow<S>(
  tx: WriteTx<S>,
  sessionId: string,
  leafId: string | null,
  options: WriteOptions,
): StoreFlow<WriteOutcome<WriteResult>> {
  const found = yield* findVisible(tx, sessionId, false);
  if (leafId !== null && !(yield* wait(tx.hasEntry(found.ref, leafId)))) {
    throw entryNotFound(sessionId, leafId);
  }
  return yield* commit(tx, found, options, leafId === found.summary.leafId ? null : { leafId });
}

/** Soft delete (`deleted`) or restore; either one on a session already in that state changes nothing. */
export function* setDeletedFlow<S>(
  tx: WriteTx<S>,
  sessionId: string,
  deleted: boolean,
  options: WriteOptions,
): StoreFlow<WriteOutcome<WriteResult>> {
  const found = yield* findVisible(tx, sessionId, true, false);
  const change =
    (found.summary.deletedAt !== null) === deleted ? null : { deletedAt: deleted ? nowIso() : null };
  return yield* commit(tx, found, options, change);
}

export function* purgeFlow<S>(tx: WriteTx<S>, sessionId: string): StoreFlow<WriteOutcome<null>> {
  const { ref } = yield* findVisible(tx, sessionId, true, false);
  yield* wait(tx.purgeSession(ref));
  return { result: null, changed: true, summary: null };
}

/** Applies a change to the session (null: nothing to change, so no revision check, no new revision). */
function* commit<S>(
  tx: WriteTx<S>,
  found: FoundSession<S>,
  options: WriteOptions,
  change: Partial<SessionSummary> | null,
): StoreFlow<WriteOutcome<WriteResult>> {
  if (!change) return { result: writeResult(found.summary), changed: false, summary: found.summary };
  checkRevision(options.expectedRevision, found.summary.revision);
  const next = changed(found.summary, change);
  yield* wait(tx.updateSession(found.ref, next));
  return { result: writeResult(next), changed: true, summary: next };
}

/**
 * A write flow, then the caller's work inside the same transaction (see `InTransaction`), then the
 * write's answer. Summaries handed to that work are copies: it may keep them.
 */
export function* withinWrite<S, R>(
  tx: WriteTx<S>,
  flow: StoreFlow<WriteOutcome<R>>,
  within: ((outcome: WriteOutcome<R>, sql: TxSql | null) => DriverStep<void>) | undefined,
): StoreFlow<R> {
  const outcome = yield* flow;
  if (within) {
    const summary = outcome.summary && { ...outcome.summary };
    yield* wait(within({ ...outcome, summary }, tx.sql ?? null));
  }
  return outcome.result;
}
