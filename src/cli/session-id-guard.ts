import { isSessionTreeError, NotFoundError } from "../core/errors.js";
import { UsageError } from "./exit.js";
import type { Location } from "./location.js";
import { sessionIdsOf } from "./resolve.js";

/**
 * Text that could be the start of a session id: hex digits and dashes, at least 4 characters.
 * Such text where a name or label was expected is most likely a session meant for `-s`.
 */
const ID_LIKE = /^[0-9a-f][0-9a-f-]{3,}$/i;

/** The sessions of the location whose id starts with `text`, when the text looks like an id. */
export function sessionsNamedBy(location: Location, text: string): Array<{ id: string; path: string }> {
  if (!ID_LIKE.test(text)) return [];
  const prefix = text.toLowerCase();
  return sessionIdsOf(location).flatMap(({ id, path }) =>
    id?.toLowerCase().startsWith(prefix) ? [{ id, path }] : [],
  );
}

/**
 * Refuses a name or label that looks like a session id prefix and matches a session
 * (`sessiontree name ffae` meant "the session ffae…", not "name the latest session ffae"), unless
 * the user said `--force`. A usage error (exit 2) that says how to do either.
 */
export function refuseSessionIdAsText(
  location: Location,
  text: string,
  what: { noun: "name" | "label"; command: string },
): void {
  const sessions = sessionsNamedBy(location, text.trim());
  if (sessions.length === 0) return;
  const first = sessions[0] as { id: string; path: string };
  const ids = [...new Set(sessions.map((s) => s.id))];
  const which =
    sessions.length === 1
      ? `session ${first.id} (${first.path})`
      : `${sessions.length} sessions (${ids.slice(0, 3).join(", ")}${ids.length > 3 ? ", …" : ""})`;
  throw new UsageError(
    `"${text}" looks like the id of ${which}, not a ${what.noun}. ` +
      `To work on a session, give it with -s: \`sessiontree ${what.command} -s ${text} …\`. ` +
      `To use "${text}" as the ${what.noun} anyway, add --force.`,
  );
}

/**
 * An entry that is not found, but whose reference names a session (`checkout d703` for
 * `checkout ENTRY -s d703`), says so; any other error is passed on as it is.
 */
export function explainEntryNotFound(location: Location, ref: string, error: unknown): unknown {
  if (!isSessionTreeError(error, "entry_not_found")) return error;
  const sessions = sessionsNamedBy(location, ref);
  if (sessions.length === 0) return error;
  return new NotFoundError(
    "entry_not_found",
    `${(error as Error).message}; "${ref}" is the start of session ${(sessions[0] as { id: string }).id}: ` +
      "give a session with -s SESSION and an entry of it",
    { details: { id: ref } },
  );
}
