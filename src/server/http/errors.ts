import { ConflictError, isSessionTreeError } from "../../core/errors.js";

/** Codes the HTTP layer adds to core's error codes. */
export type HttpErrorCode =
  | "unauthorized"
  | "route_not_found"
  | "method_not_allowed"
  | "invalid_json"
  | "invalid_request"
  | "unsupported_media_type"
  | "payload_too_large"
  | "rate_limited"
  | "idempotency_key_reused"
  | "idempotency_in_progress"
  | "internal";

/** An error the HTTP layer raises itself: status and code chosen at the throw site. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: HttpErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export interface ErrorReply {
  status: number;
  body: { code: string; message: string; currentRevision?: number };
  headers: Record<string, string>;
}

/** Core error codes → HTTP statuses. A missing and a foreign session share one status and body. */
const STATUS_BY_CODE: Record<string, number> = {
  session_not_found: 404,
  entry_not_found: 404,
  not_a_session: 400,
  invalid_header: 400,
  invalid_entry: 400,
  invalid_argument: 400,
  duplicate_entry: 409,
  conflict: 412,
  lease_held: 409,
  read_only: 403,
  io_error: 500,
};

/**
 * Turns anything thrown by a handler into a `{ code, message }` reply. Unknown errors become a
 * generic 500 whose message reveals nothing about the internals.
 */
export function toErrorReply(error: unknown): ErrorReply {
  if (error instanceof HttpError) {
    return {
      status: error.status,
      body: { code: error.code, message: error.message },
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
    const status = STATUS_BY_CODE[error.code] ?? 400;
    const message = error.code === "session_not_found" ? "Session not found" : error.message;
    return { status, body: { code: error.code, message }, headers: {} };
  }
  if (isDataException(error)) {
    const message = "The request holds data the database cannot store (e.g. a NUL character)";
    return { status: 400, body: { code: "invalid_argument", message }, headers: {} };
  }
  return { status: 500, body: { code: "internal", message: "Internal server error" }, headers: {} };
}

/**
 * PostgreSQL's SQLSTATE class 22 ("data exception": NUL in text, bad encodings, overflows) is
 * always caused by the data sent, so it is the client's 400, not the server's 500.
 */
function isDataException(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^22[0-9A-Z]{3}$/.test(code);
}

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
  const match = /^\s*(?:W\/)?"?(\d{1,15})"?\s*$/.exec(header);
  if (!match?.[1]) throw new HttpError(400, "invalid_request", 'If-Match must name a revision, e.g. "7"');
  return Number(match[1]);
}
