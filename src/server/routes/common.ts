import type { SessionEntry } from "../../core/entry.js";
import type { SessionSummary, WriteOutcome } from "../../store/store.js";
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

/** A created (or imported) session, as its write reports it. */
export function createdReply({ result }: WriteOutcome<SessionSummary>): Reply {
  return summaryReply(result, 201);
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
 * The path root → `leafId` (default: the session's leaf, whose path is empty while it is null) with
 * the revision it was read at, for the answers about one branch (the branch, its context).
 */
export async function readPathAt(
  services: ServerServices,
  owner: string,
  sessionId: string,
  leafId: string | undefined,
): Promise<{ leafId: string | null; path: SessionEntry[]; revision: number }> {
  const summary = await services.store.getSummary(owner, sessionId);
  const at = leafId ?? summary.leafId;
  const path = at === null ? [] : await services.store.readBranch(owner, sessionId, at);
  return { leafId: at, path, revision: summary.revision };
}
