/**
 * Every error sessiontree throws carries a stable `code`. Callers (the HTTP layer, the CLI, tests)
 * branch on the code, never on the message text.
 */
export type ErrorCode =
  | "entry_not_found"
  | "session_not_found"
  | "not_a_session"
  | "empty_session_file"
  | "foreign_session_file"
  | "invalid_header"
  | "invalid_entry"
  | "invalid_argument"
  | "duplicate_entry"
  | "entry_too_large"
  | "entry_too_deep"
  | "conflict"
  | "lease_held"
  | "read_only"
  | "provider_error"
  | "schema_too_new"
  | "blob_not_found"
  | "blob_corrupt"
  | "io_error";

export interface ErrorOptions {
  cause?: unknown;
  /** Structured facts a caller may show or log (ids, paths, revisions). */
  details?: Record<string, unknown>;
}

export class SessionTreeError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options.details ?? {};
  }
}

/** An entry or session that does not exist (or that the caller may not see: the two answer alike). */
export class NotFoundError extends SessionTreeError {
  constructor(code: "entry_not_found" | "session_not_found", message: string, options?: ErrorOptions) {
    super(code, message, options);
  }
}

/** A write named a revision that is no longer current. `currentRevision` says what is. */
export class ConflictError extends SessionTreeError {
  readonly currentRevision: number | undefined;
  constructor(message: string, currentRevision?: number, options: ErrorOptions = {}) {
    super("conflict", message, { ...options, details: { ...options.details, currentRevision } });
    this.currentRevision = currentRevision;
  }
}

/** A file that is not a session, or whose header cannot be read. Nothing is written to it. */
export class CorruptSessionError extends SessionTreeError {
  constructor(code: "not_a_session" | "invalid_header", message: string, options?: ErrorOptions) {
    super(code, message, options);
  }
}

/** Input that breaks the rules of the format or of an API call. */
export class ValidationError extends SessionTreeError {
  constructor(
    code: "invalid_entry" | "invalid_argument" | "duplicate_entry" | "entry_too_large" | "entry_too_deep",
    message: string,
    options?: ErrorOptions,
  ) {
    super(code, message, options);
  }
}

/** Another live process holds the writer lease on a session. */
export class LeaseHeldError extends SessionTreeError {
  constructor(message: string, options?: ErrorOptions) {
    super("lease_held", message, options);
  }
}

export function isSessionTreeError(value: unknown, code?: ErrorCode): value is SessionTreeError {
  return value instanceof SessionTreeError && (code === undefined || value.code === code);
}
