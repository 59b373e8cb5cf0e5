import type { SessionSummary, WriteOutcome } from "../../store/store.js";
import { sessionLocation } from "../http/reply.js";
import type { Reply, ResponseSpec } from "../http/route.js";
import { ErrorBody } from "../schemas.js";

/** A session as the API shows it: the owner is implied by the credential, never echoed. */
export function publicSummary(summary: SessionSummary): Omit<SessionSummary, "owner"> {
  const { owner: _owner, ...rest } = summary;
  return rest;
}

export function summaryReply(summary: SessionSummary, status = 200): Reply {
  return { status, body: publicSummary(summary), revision: summary.revision };
}

/** A created (or imported) session, as its write reports it, and where it is now. */
export function createdReply({ result }: WriteOutcome<SessionSummary>): Reply {
  return { ...summaryReply(result, 201), headers: { location: sessionLocation(result.id) } };
}

export const error = (description: string): ResponseSpec => ({ description, schema: ErrorBody });

/** The error answers every authenticated route can give. */
export const AUTH_ERRORS: Record<number, ResponseSpec> = {
  400: error("Malformed request: bad JSON, wrong types, unsafe ids"),
  401: error("Missing, unknown, revoked or expired credential"),
  403: error("The user is disabled on this server (user_disabled)"),
  429: error("Rate limit exceeded for this user (or client address, unauthenticated); see Retry-After"),
};

/** Plus what routes on one session can answer. */
export const SESSION_ERRORS: Record<number, ResponseSpec> = {
  ...AUTH_ERRORS,
  404: error("No such session for this user (another user's session answers the same)"),
};

/** Plus what a whole-session read (tree, context, branch, export, labels) can answer. */
export const WHOLE_READ_ERRORS: Record<number, ResponseSpec> = {
  ...SESSION_ERRORS,
  413: error("The answer would exceed the response size limit: read the session in pages (GET …/entries)"),
  429: error("Rate limit exceeded, or too many whole-session reads at once for this user (Retry-After)"),
};

/** What a route that takes If-Match can answer. */
export const PRECONDITION_ERRORS: Record<number, ResponseSpec> = {
  412: error("If-Match names a stale revision; the body carries currentRevision"),
};

/** What any route that takes a JSON body can answer about the body itself. */
export const BODY_ERRORS: Record<number, ResponseSpec> = {
  413: error("Body, entry or batch larger than the limits"),
  415: error("Body is not application/json"),
};

export const WRITE_ERRORS: Record<number, ResponseSpec> = {
  ...SESSION_ERRORS,
  ...BODY_ERRORS,
  403: error("The user is disabled (user_disabled), or the write would pass a quota (quota_exceeded)"),
  409: error("Conflicting duplicate entry, or the Idempotency-Key is in use"),
  ...PRECONDITION_ERRORS,
  422: error("Idempotency-Key reused with a different request"),
};
