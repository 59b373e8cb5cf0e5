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
