import type { EntryDraft, SessionEntry } from "./entry.js";
import { newEntryId, nowIso } from "./ids.js";

export interface StampOptions {
  /** Whether an id is in use; a new id is drawn until one is free. Ignored when `id` is given. */
  isTaken: (id: string) => boolean;
  /** The entry's id when the caller chose it (a client's retry-safe id). */
  id?: string;
  /** ISO 8601; now when absent. */
  timestamp?: string;
}

/**
 * A draft made an entry: id, parent and timestamp filled in, with pi's key order: type, id,
 * parentId, timestamp, then the type's own fields; for the extension entries pi builds the other
 * way round (`custom`, `custom_message`), the draft's fields first. The one place entries are
 * stamped: the tree's append, the service's append route and the agent's store backend all come here.
 */
export function stampDraft<E extends SessionEntry = SessionEntry>(
  draft: EntryDraft<E> | EntryDraft,
  parentId: string | null,
  options: StampOptions,
): E {
  const id = options.id ?? newEntryId(options.isTaken);
  const timestamp = options.timestamp ?? nowIso();
  if (OWN_FIELDS_FIRST.has(draft.type)) {
    const entry = assignFields({ type: draft.type }, draft);
    entry.id = id;
    entry.parentId = parentId;
    entry.timestamp = timestamp;
    return entry as unknown as E;
  }
  return assignFields({ type: draft.type as string, id, parentId, timestamp }, draft) as unknown as E;
}

/** Entry types whose fields pi writes before id, parentId and timestamp. */
const OWN_FIELDS_FIRST = new Set(["custom", "custom_message"]);

/**
 * `Object.assign`, not a double spread: spread-built objects get slow shapes, and every walk of a
 * long path pays for that on each entry. But assign would run the `__proto__` setter for a draft
 * parsed from JSON that holds such a key: that one key is defined as a plain field instead.
 */
function assignFields(target: Record<string, unknown>, draft: object): Record<string, unknown> {
  if (!Object.hasOwn(draft, "__proto__")) return Object.assign(target, draft);
  for (const [key, value] of Object.entries(draft))
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return target;
}
