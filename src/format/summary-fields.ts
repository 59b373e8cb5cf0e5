import type { SessionEntry, SessionMessageEntry } from "../core/entry.js";
import { isWellFormed } from "../core/validate.js";

/**
 * The fields a session listing shows that follow from the entries. Both listings compute them:
 * `SessionStore` summaries (store/summary.ts) and pi's `SessionInfo` (session/session-info.ts).
 */
export interface ListingFields {
  /** Every `message` entry, whatever its role. */
  messageCount: number;
  /** The first message with listed text (see `foldListingFields`); "" until there is one. */
  firstMessage: string;
  /** The latest session_info's name; undefined when there is none or the latest one is blank. */
  name: string | undefined;
}

/** As pi: the latest session_info names the session, and an empty or blank name clears it. */
export function sessionInfoName(name: unknown): string | undefined {
  return typeof name === "string" ? name.trim() || undefined : undefined;
}

/**
 * Folds entries, in storage order, into the fields `current` holds. `listedText` renders a message
 * for the listing, "" for one that does not count (listings differ only there: which roles, how text
 * blocks are joined, how long it may be); the first non-empty one is the first message.
 */
export function foldListingFields(
  current: ListingFields,
  entries: Iterable<SessionEntry>,
  listedText: (message: SessionMessageEntry["message"]) => string,
): ListingFields {
  let { messageCount, firstMessage, name } = current;
  for (const entry of entries) {
    if (entry.type === "message") {
      messageCount++;
      if (!firstMessage) firstMessage = listedText(entry.message);
    } else if (entry.type === "session_info" && isWellFormed(entry)) {
      // A malformed one (its name not a string) names nothing, as in the session's tree.
      name = sessionInfoName(entry.name);
    }
  }
  return { messageCount, firstMessage, name };
}
