import { sameContent } from "../../core/canonical-json.js";
import type { SessionEntry } from "../../core/entry.js";
import { ValidationError } from "../../core/errors.js";
import { HIDDEN_ID, type StoredId } from "./driver.js";
import { withParent } from "./validate-batch.js";

/** What one append will do, decided before anything is written. */
export interface AppendPlan {
  /** New entries, in batch order. */
  toInsert: SessionEntry[];
  /** Ids already stored with identical content (a retried append). */
  skipped: string[];
  /** The leaf after the append. */
  leafId: string | null;
  /** False when the batch changes nothing: no revision check, no new revision. */
  changed: boolean;
}

/** The ids to look up before planning: the batch's ids, their parents, and the leaf it may hang under. */
export function idsToLookUp(batch: readonly SessionEntry[], leafId: string | null = null): string[] {
  const ids = new Set<string>();
  for (const entry of batch) {
    ids.add(entry.id);
    if (entry.parentId !== null) ids.add(entry.parentId);
  }
  if (leafId !== null) ids.add(leafId);
  return [...ids];
}

/**
 * `underLeaf`: the first entry hangs under the leaf as it stands inside this write, so appends that
 * race form one chain instead of forking or failing. A retry whose first entry is already stored
 * keeps that entry's stored parent, so it still matches and is skipped.
 */
export function hangUnderLeaf(
  batch: readonly SessionEntry[],
  stored: ReadonlyMap<string, StoredId>,
  leafId: string | null,
): readonly SessionEntry[] {
  const first = batch[0];
  if (!first) return batch;
  const storedFirst = stored.get(first.id);
  const parentId = storedFirst && storedFirst !== HIDDEN_ID ? storedFirst.parentId : leafId;
  return parentId === first.parentId ? batch : [withParent(first, parentId), ...batch.slice(1)];
}

/**
 * Plans an append of a validated batch (see `validateBatch`). `stored` holds the stored entries
 * among `idsToLookUp(batch)`; ids it lacks are taken as absent. Identical stored entries are
 * skipped, a different one with the same id (or an id taken by something that is no entry) is
 * `duplicate_entry`; each parent must be stored or come earlier in the batch (`invalid_entry`).
 * The leaf moves only when something new is written, so retrying a completed append never moves a
 * leaf that was moved since.
 */
export function planAppend(
  batch: readonly SessionEntry[],
  stored: ReadonlyMap<string, StoredId>,
  currentLeaf: string | null,
  moveLeaf: boolean,
): AppendPlan {
  const toInsert: SessionEntry[] = [];
  const skipped: string[] = [];
  const inBatch = new Map<string, SessionEntry>();
  batch.forEach((entry, index) => {
    const earlier = stored.get(entry.id) ?? inBatch.get(entry.id);
    if (earlier) {
      if (earlier === HIDDEN_ID || !sameContent(earlier, entry)) throw duplicate(entry.id, index);
      if (!inBatch.has(entry.id)) skipped.push(entry.id);
      return;
    }
    if (entry.parentId !== null && !isKnownParent(entry.parentId, stored, inBatch)) {
      throw new ValidationError(
        "invalid_entry",
        `Entry ${index} (${entry.id}): parent ${entry.parentId} is neither stored nor earlier in the batch`,
        { details: { index, id: entry.id, parentId: entry.parentId } },
      );
    }
    inBatch.set(entry.id, entry);
    toInsert.push(entry);
  });
  const last = toInsert[toInsert.length - 1];
  const leafId = moveLeaf && last ? last.id : currentLeaf;
  return { toInsert, skipped, leafId, changed: toInsert.length > 0 };
}

function isKnownParent(
  parentId: string,
  stored: ReadonlyMap<string, StoredId>,
  inBatch: ReadonlyMap<string, SessionEntry>,
): boolean {
  const parent = stored.get(parentId);
  return (parent !== undefined && parent !== HIDDEN_ID) || inBatch.has(parentId);
}

function duplicate(id: string, index: number): ValidationError {
  return new ValidationError(
    "duplicate_entry",
    `Entry ${index}: id ${id} is already stored with different content`,
    { details: { index, id } },
  );
}
