import { ConflictError, type ErrorCode, isSessionTreeError } from "../../core/errors.js";
import { formatEtag } from "./etag.js";
import { HttpError } from "./http-error.js";

export interface ErrorReply {
  status: number;
  body: { code: string; message: string; currentRevision?: number; details?: Record<string, unknown> };
  headers: Record<string, string>;
}

/**
 * Core error codes → HTTP statuses. Every code must be listed, so a new code cannot reach a client
 * with a guessed status. A missing and a foreign session share one status and body. A code given a
 * 5xx here reaches the client as `internal` only (toErrorReply).
 */
const STATUS_BY_CODE: Record<ErrorCode, number> = {
  session_not_found: 404,
  entry_not_found: 404,
  not_a_session: 400,
  empty_session_file: 400,
  foreign_session_file: 400,
  invalid_header: 400,
  invalid_entry: 400,
  invalid_argument: 400,
  duplicate_entry: 409,
  entry_too_large: 413,
  entry_too_deep: 400,
  conflict: 412,
  lease_held: 409,
  read_only: 403,
  // A model provider failed behind us: the request may be fine, the upstream was not.
  provider_error: 502,
  // A database written by a newer sessiontree: the operator must upgrade this server.
  schema_too_new: 503,
  // A payload kept out of line is missing or damaged in object storage: the server's fault.
  blob_not_found: 500,
  blob_corrupt: 500,
  io_error: 500,
};

/** What a client learns of a failure inside the server: that it happened, nothing of its cause. */
const INTERNAL = { code: "internal", message: "Internal server error" } as const;

/**
 * Turns anything thrown by a handler into a `{ code, message }` reply. A core error the client
 * caused says what it was; one of the server's own (a 5xx: a blob missing from storage, an I/O
 * error, a schema too new) and unknown errors answer `INTERNAL` with their status, since their
 * messages may hold paths, hashes or hosts. The cause is logged on the request's line
 * (`sendError` in register.ts), with its request id. HttpErrors are built for the client as they
 * are (503 not_ready).
 */
export function toErrorReply(error: unknown): ErrorReply {
  if (error instanceof HttpError) {
    return {
      status: error.status,
      body: {
        code: error.code,
        message: error.message,
        ...(error.details ? { details: error.details } : {}),
      },
      headers: error.headers,
    };
  }
  if (error instanceof ConflictError) {
    const body = { code: error.code, message: error.message, currentRevision: error.currentRevision };
    const headers: Record<string, string> = {};
    if (error.currentRevision !== undefined) headers.ETag = formatEtag(error.currentRevision);
    return { status: 412, body, headers };
  }
  if (isSessionTreeError(error)) {
    const status = STATUS_BY_CODE[error.code];
    if (status >= 500) return { status, body: { ...INTERNAL }, headers: {} };
    const message = error.code === "session_not_found" ? "Session not found" : error.message;
    return { status, body: { code: error.code, message }, headers: {} };
  }
  if (isDataException(error)) {
    const message = "The request holds data the database cannot store (e.g. a NUL character)";
    return { status: 400, body: { code: "invalid_argument", message }, headers: {} };
  }
  return { status: 500, body: { ...INTERNAL }, headers: {} };
}

/**
 * PostgreSQL's SQLSTATE class 22 ("data exception": NUL in text, bad encodings, overflows) is
 * always caused by the data sent, so it is the client's 400, not the server's 500.
 */
function isDataException(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^22[0-9A-Z]{3}$/.test(code);
}
