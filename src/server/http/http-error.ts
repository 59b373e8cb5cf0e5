/** Codes the HTTP layer adds to core's error codes. */
export type HttpErrorCode =
  | "unauthorized"
  | "route_not_found"
  | "method_not_allowed"
  | "invalid_json"
  | "invalid_request"
  | "unsupported_media_type"
  | "payload_too_large"
  | "request_aborted"
  | "rate_limited"
  | "idempotency_key_reused"
  | "idempotency_in_progress"
  | "user_disabled"
  | "too_many_keys"
  | "credential_expiring"
  | "quota_exceeded"
  | "not_ready"
  | "cors_origin_denied"
  | "internal";

/** An error the HTTP layer raises itself: status and code chosen at the throw site. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: HttpErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    /** Facts a client may act on (a quota's limit and use), sent as the body's `details`. */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "HttpError";
  }
}
