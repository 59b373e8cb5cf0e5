import type { SessionEntry } from "../../core/entry.js";
import { ConflictError, isSessionTreeError, ValidationError } from "../../core/errors.js";
import { newEntryId } from "../../core/ids.js";
import { checkEntry } from "../../core/validate.js";
import type { AppendResult } from "../../store/store.js";
import { HttpError } from "../http/errors.js";
import type { ServerServices } from "../services.js";

/** An entry as sent: the common fields may be missing and are filled in here. */
export interface EntryDraftInput {
  type: string;
  id?: string;
  parentId?: string | null;
  timestamp?: string;
  [field: string]: unknown;
}

export interface AppendDraftOptions {
  ifMatch?: number;
  moveLeaf?: boolean;
}

/** How often a write that lost a race (to another instance) is retried before giving up with 412. */
const MAX_ATTEMPTS = 25;

/**
 * Appends a batch, filling missing ids, parents (the previous entry of the batch, or the leaf for
 * the first) and timestamps. When the batch hangs off the leaf, the leaf and revision are read and
 * the write names that revision, so a racing write on another instance cannot slip in between;
 * without a client If-Match such a lost race is simply retried on the new leaf.
 */
export async function appendDrafts(
  services: ServerServices,
  owner: string,
  sessionId: string,
  drafts: EntryDraftInput[],
  options: AppendDraftOptions = {},
): Promise<AppendResult> {
  checkBatchLimits(services, drafts);
  const needsLeaf = drafts[0]?.parentId === undefined;
  return services.queue.run(owner, sessionId, async () => {
    for (let attempt = 1; ; attempt++) {
      let expected = options.ifMatch;
      let leaf: string | null = null;
      if (needsLeaf || expected !== undefined) {
        // Also when the batch names its parents: a retry that changes nothing must still see the 412.
        // Without If-Match the first attempt may trust the cache: a stale hint only costs a retry.
        const hint =
          attempt === 1 && expected === undefined ? services.leaves.get(owner, sessionId) : undefined;
        const summary = hint ?? (await services.store.getSummary(owner, sessionId));
        if (expected !== undefined && expected !== summary.revision) {
          throw new ConflictError("The session changed since the revision named", summary.revision);
        }
        expected = summary.revision;
        leaf = summary.leafId;
      }
      const entries = fillDrafts(services, drafts, leaf);
      try {
        const result = await services.store.appendEntries(owner, sessionId, entries, {
          expectedRevision: expected,
          moveLeaf: options.moveLeaf,
        });
        services.leaves.remember(owner, sessionId, result);
        return result;
      } catch (error) {
        services.leaves.forget(owner, sessionId);
        if (attempt >= MAX_ATTEMPTS || !isRetryable(error, options, needsLeaf, drafts)) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * attempt));
      }
    }
  });
}

/** A lost race when the client named no revision, or a clash of an id we generated ourselves. */
function isRetryable(
  error: unknown,
  options: AppendDraftOptions,
  needsLeaf: boolean,
  drafts: EntryDraftInput[],
): boolean {
  if (error instanceof ConflictError) return options.ifMatch === undefined && needsLeaf;
  return isSessionTreeError(error, "duplicate_entry") && drafts.some((d) => d.id === undefined);
}

function checkBatchLimits(services: ServerServices, drafts: EntryDraftInput[]): void {
  const { maxEntriesPerRequest, maxEntryBytes } = services.limits;
  if (drafts.length > maxEntriesPerRequest) {
    throw new HttpError(413, "payload_too_large", `At most ${maxEntriesPerRequest} entries per request`);
  }
  for (const draft of drafts) {
    if (Buffer.byteLength(JSON.stringify(draft)) > maxEntryBytes) {
      throw new HttpError(413, "payload_too_large", `An entry is larger than ${maxEntryBytes} bytes`);
    }
  }
}

function fillDrafts(
  services: ServerServices,
  drafts: EntryDraftInput[],
  leaf: string | null,
): SessionEntry[] {
  const taken = new Set(drafts.flatMap((d) => (d.id === undefined ? [] : [d.id])));
  const entries: SessionEntry[] = [];
  let previous = leaf;
  const now = services.now().toISOString();
  for (const draft of drafts) {
    const id = draft.id ?? newEntryId((candidate) => taken.has(candidate));
    taken.add(id);
    const { type, id: _id, parentId, timestamp, ...fields } = draft;
    // pi's field order: the common fields first, then the type's own.
    const entry = {
      type,
      id,
      parentId: parentId === undefined ? previous : parentId,
      timestamp: timestamp ?? now,
      ...fields,
    };
    const checked = checkEntry(entry);
    if (!checked.ok) throw new ValidationError("invalid_entry", `Entry ${id}: ${checked.reason}`);
    entries.push(checked.value);
    previous = id;
  }
  return entries;
}
