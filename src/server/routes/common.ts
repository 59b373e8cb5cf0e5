import { ConflictError } from "../../core/errors.js";
import type { SessionSummary } from "../../store/store.js";
import type { Reply, ResponseSpec } from "../http/route.js";
import { ErrorBody } from "../schemas.js";
import type { ServerServices } from "../services.js";

/** A session as the API shows it: the owner is implied by the credential, never echoed. */
export function publicSummary(summary: SessionSummary): Omit<SessionSummary, "owner"> {
  const { owner: _owner, ...rest } = summary;
  return rest;
}

export function summaryReply(summary: SessionSummary, status = 200): Reply {
  return { status, body: publicSummary(summary), revision: summary.revision };
}

const error = (description: string): ResponseSpec => ({ description, schema: ErrorBody });

/** The error answers every authenticated route can give. */
export const AUTH_ERRORS: Record<number, ResponseSpec> = {
  400: error("Malformed request: bad JSON, wrong types, unsafe ids"),
  401: error("Missing, unknown, revoked or expired credential"),
  429: error("Rate limit exceeded for this credential"),
};

/** Plus what routes on one session can answer. */
export const SESSION_ERRORS: Record<number, ResponseSpec> = {
  ...AUTH_ERRORS,
  404: error("No such session for this user (another user's session answers the same)"),
};

export const WRITE_ERRORS: Record<number, ResponseSpec> = {
  ...SESSION_ERRORS,
  409: error("Conflicting duplicate entry, or the Idempotency-Key is in use"),
  412: error("If-Match names a stale revision; the body carries currentRevision"),
  413: error("Body, entry or batch larger than the limits"),
  415: error("Body is not application/json"),
  422: error("Idempotency-Key reused with a different request"),
};

/**
 * Checks `If-Match` before a write. The store checks the revision only for writes that change
 * something; HTTP promises a 412 for any stale precondition, no-op or not.
 */
export async function checkIfMatch(
  services: ServerServices,
  owner: string,
  sessionId: string,
  ifMatch: number | undefined,
  includeDeleted = false,
): Promise<void> {
  if (ifMatch === undefined) return;
  const { revision } = await services.store.getSummary(owner, sessionId, { includeDeleted });
  if (revision !== ifMatch) throw new ConflictError("The session changed since the revision named", revision);
}
