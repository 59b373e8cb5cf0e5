import type { EntryDraft, SessionEntry } from "../../core/entry.js";
import { isSessionTreeError, NotFoundError } from "../../core/errors.js";
import { stampDraft } from "../../core/stamp.js";
import type { AppendResult } from "../../store/store.js";
import { HttpError } from "../http/http-error.js";
import type { Reply } from "../http/route.js";
import type { ServerServices } from "../services.js";
import { type WriteRecord, writeSession } from "./session-write.js";

/** An entry as sent: the common fields may be missing and are filled in here. */
interface EntryDraftInput {
  type: string;
  id?: string;
  parentId?: string | null;
  timestamp?: string;
  [field: string]: unknown;
}

interface AppendDraftOptions {
  ifMatch?: number;
  moveLeaf?: boolean;
}

/**
 * Ids the server draws are 8 hex digits, as pi's, checked only against the batch: one may already
 * be stored (a chance of entries / 2^32). Such a clash is a `duplicate_entry`; fresh ids fix it.
 */
const ID_DRAWS = 3;

/**
 * Appends a batch, filling in missing ids, parents and timestamps. A batch whose first entry names
 * no parent hangs under the leaf as the store finds it inside its write (`underLeaf`), so no leaf
 * is read first and concurrent appends, on any instance, chain instead of racing; later entries
 * without a parent follow the entry before them.
 */
export async function appendDrafts(
  services: ServerServices,
  owner: string,
  sessionId: string,
  drafts: EntryDraftInput[],
  options: AppendDraftOptions,
  record: WriteRecord<AppendResult>,
): Promise<Reply> {
  checkBatchLimits(services, drafts);
  await checkLabelTargets(services, owner, sessionId, drafts);
  const underLeaf = drafts[0]?.parentId === undefined;
  const drawsIds = drafts.some((draft) => draft.id === undefined);
  return writeSession(services, { owner, sessionId, ifMatch: options.ifMatch }, record, async (write) => {
    for (let draw = 1; ; draw++) {
      const entries = stampDrafts(drafts, services.now().toISOString());
      try {
        const appendOptions = { ...write, moveLeaf: options.moveLeaf, underLeaf };
        return await services.store.appendEntries(owner, sessionId, entries, appendOptions);
      } catch (error) {
        if (!drawsIds || draw >= ID_DRAWS || !isSessionTreeError(error, "duplicate_entry")) throw error;
      }
    }
  });
}

/**
 * A label names an entry that exists: stored, or earlier in the batch (docs/server.md). One index
 * lookup per label. History pushed by sync or imported keeps its labels as written (pi reads a
 * label on a missing target, and so do we); this is only for what a client adds now.
 */
async function checkLabelTargets(
  services: ServerServices,
  owner: string,
  sessionId: string,
  drafts: EntryDraftInput[],
): Promise<void> {
  const earlier = new Set<string>();
  for (const draft of drafts) {
    const target = draft.type === "label" ? draft.targetId : undefined;
    if (
      typeof target === "string" &&
      !earlier.has(target) &&
      !(await services.store.hasEntry(owner, sessionId, target))
    )
      throw new NotFoundError("entry_not_found", `Entry ${target} not found in session ${sessionId}`, {
        details: { sessionId, entryId: target },
      });
    if (typeof draft.id === "string") earlier.add(draft.id);
  }
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

/**
 * The drafts as entries (core's `stampDraft`: pi's key order). A missing parent is the entry before
 * in the batch; for the first, null stands in for the leaf the store puts there (`underLeaf`). The
 * store validates every entry.
 */
function stampDrafts(drafts: readonly EntryDraftInput[], now: string): SessionEntry[] {
  const taken = new Set(drafts.flatMap((draft) => (draft.id === undefined ? [] : [draft.id])));
  const isTaken = (id: string) => taken.has(id);
  let previous: string | null = null;
  return drafts.map((draft) => {
    // A `__proto__` field is an ordinary field everywhere (stampDraft, the stores' JSON and their
    // content comparison), as it is in an imported file.
    const { id, parentId, timestamp, ...fields } = draft;
    const parent = parentId === undefined ? previous : parentId;
    const entry = stampDraft(fields as EntryDraft, parent, { isTaken, id, timestamp: timestamp ?? now });
    taken.add(entry.id);
    previous = entry.id;
    return entry;
  });
}
