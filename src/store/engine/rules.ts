import { ConflictError, NotFoundError, ValidationError } from "../../core/errors.js";
import { nowIso } from "../../core/ids.js";
import { isSafeId } from "../../core/validate.js";
import type { SessionSummary, WriteResult } from "../store.js";

/**
 * The one answer for a session that is missing, soft-deleted or another owner's: same class, code
 * and message shape, so a caller cannot tell them apart (tenant isolation).
 */
export function sessionNotFound(sessionId: string): NotFoundError {
  return new NotFoundError("session_not_found", `Session ${sessionId} not found`, { details: { sessionId } });
}

export function entryNotFound(sessionId: string, entryId: string): NotFoundError {
  return new NotFoundError("entry_not_found", `Entry ${entryId} not found in session ${sessionId}`, {
    details: { sessionId, entryId },
  });
}

/** Throws `ConflictError` when the caller named a revision that is no longer current. */
export function checkRevision(expected: number | undefined, current: number): void {
  if (expected !== undefined && expected !== current) {
    throw new ConflictError(`Expected revision ${expected}, the session is at ${current}`, current);
  }
}

/** A session id for a new session: same rule as entry ids (safe in URLs, file names, SQL params). */
export function requireSafeSessionId(id: string): string {
  if (typeof id !== "string" || !isSafeId(id)) {
    throw new ValidationError("invalid_argument", `Session id ${JSON.stringify(id)} is not a safe id`);
  }
  return id;
}

/** Owners come from authentication; an empty or non-string owner is a programming error. */
export function requireOwner(owner: string): string {
  if (typeof owner !== "string" || owner.length === 0 || owner.length > 256) {
    throw new ValidationError(
      "invalid_argument",
      "owner must be a non-empty string of at most 256 characters",
    );
  }
  return owner;
}

export function sessionExists(sessionId: string, currentRevision: number): ConflictError {
  return new ConflictError(`Session ${sessionId} already exists`, currentRevision, {
    details: { sessionId },
  });
}

/** The summary after a change: one more revision, modified now. */
export function changed(summary: SessionSummary, change: Partial<SessionSummary>): SessionSummary {
  return { ...summary, ...change, revision: summary.revision + 1, modifiedAt: nowIso() };
}

export function writeResult(summary: SessionSummary): WriteResult {
  return { revision: summary.revision, leafId: summary.leafId };
}
