import { sameContent } from "../core/canonical-json.js";
import type { SessionEntry } from "../core/entry.js";
import { ValidationError } from "../core/errors.js";

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

/**
 * Plans an append of a validated batch (see `validateBatch`). `existing` holds the stored entries
 * whose ids are among `idsToLookUp(batch)`; ids it lacks are taken as absent. Identical stored
 * entries are skipped, a different one with the same id is `duplicate_entry`; each parent must be
 * stored or come earlier in the batch (`invalid_entry`). The leaf moves only when something new is
 * written, so retrying a completed append never moves a leaf that was moved since.
 */
export function planAppend(
  batch: readonly SessionEntry[],
  existing: ReadonlyMap<string, SessionEntry>,
  currentLeaf: string | null,
  moveLeaf: boolean,
): AppendPlan {
  const toInsert: SessionEntry[] = [];
  const skipped: string[] = [];
  const inBatch = new Map<string, SessionEntry>();
  batch.forEach((entry, index) => {
    const earlier = existing.get(entry.id) ?? inBatch.get(entry.id);
    if (earlier) {
      if (!sameContent(earlier, entry)) throw duplicate(entry.id, index);
      if (!inBatch.has(entry.id)) skipped.push(entry.id);
      return;
    }
    if (entry.parentId !== null && !existing.has(entry.parentId) && !inBatch.has(entry.parentId)) {
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

function duplicate(id: string, index: number): ValidationError {
  return new ValidationError(
    "duplicate_entry",
    `Entry ${index}: id ${id} is already stored with different content`,
    {
      details: { index, id },
    },
  );
}
