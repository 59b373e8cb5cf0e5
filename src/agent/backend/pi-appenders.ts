import type { EntryDraft, EntryType, SessionEntry } from "../../core/entry.js";
import { isKnownEntryType } from "../../core/entry.js";
import { ValidationError } from "../../core/errors.js";
import type { SessionManagerLike } from "../../session/session-manager-like.js";

type DraftOf<T extends EntryType> = EntryDraft<Extract<SessionEntry, { type: T }>>;
type Appender<T extends EntryType> = (manager: SessionManagerLike, draft: DraftOf<T>) => string;

/**
 * How each entry type is appended through pi's own SessionManager, which takes no drafts: its
 * `appendX` method with the draft's fields as arguments. A branch summary has no such method (pi
 * writes one only together with a leaf move, `branchWithSummary`).
 */
const PI_APPENDERS: { readonly [T in EntryType]: Appender<T> | null } = {
  message: (m, d) => m.appendMessage(d.message as never),
  thinking_level_change: (m, d) => m.appendThinkingLevelChange(d.thinkingLevel),
  model_change: (m, d) => m.appendModelChange(d.provider, d.modelId),
  compaction: (m, d) =>
    m.appendCompaction(d.summary, d.firstKeptEntryId, d.tokensBefore, d.details, d.fromHook),
  branch_summary: null,
  custom: (m, d) => m.appendCustomEntry(d.customType, d.data),
  custom_message: (m, d) => m.appendCustomMessageEntry(d.customType, d.content, d.display, d.details),
  label: (m, d) => m.appendLabelChange(d.targetId, d.label),
  session_info: (m, d) => m.appendSessionInfo(d.name ?? ""),
};

/** Appends `draft` under the leaf through pi's methods and returns the stored entry. */
export function appendThroughPiMethods(manager: SessionManagerLike, draft: EntryDraft): SessionEntry {
  const append = isKnownEntryType(draft.type) ? PI_APPENDERS[draft.type] : null;
  if (!append) {
    throw new ValidationError(
      "invalid_argument",
      `Cannot append a ${draft.type} entry through pi's SessionManager`,
    );
  }
  const id = (append as Appender<EntryType>)(manager, draft as DraftOf<EntryType>);
  return manager.getEntry(id) as SessionEntry;
}
