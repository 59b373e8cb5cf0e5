import { HttpError } from "./http-error.js";

/** Revisions travel as strong ETags: `"7"`. */
export function formatEtag(revision: number): string {
  return `"${revision}"`;
}

/**
 * Reads `If-Match`: `"7"`, `W/"7"` or `7` name revision 7; `*` or no header means "any".
 * Anything else is a 400, so a typo never turns into an unconditional write.
 */
export function parseIfMatch(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === "*") return undefined;
  // Quotes come in pairs: `"7"` or `7`, never `"7` or `7"`.
  const match = /^\s*(?:W\/)?(?:"(\d{1,15})"|(\d{1,15}))\s*$/.exec(header);
  const digits = match?.[1] ?? match?.[2];
  if (!digits) throw new HttpError(400, "invalid_request", 'If-Match must name a revision, e.g. "7"');
  return Number(digits);
}

/**
 * Whether `If-None-Match` names the representation at `revision`: `*`, or a list of entity tags
 * of which one is `"<revision>"` (compared weakly, as RFC 9110 §13.1.2 says: `W/"7"` matches).
 * A header that names nothing readable matches nothing: the full answer goes out.
 */
export function noneMatchHolds(header: string | undefined, revision: number): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  const wanted = formatEtag(revision);
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === wanted);
}
