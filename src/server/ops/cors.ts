/** Who may call the API from a browser page, and what such a call may send and read. */
export interface CorsPolicy {
  /** Exact origins (`https://app.example.com`), or "*" for any. */
  origins: readonly string[];
}

const ALLOW_METHODS = "GET, POST, PUT, PATCH, DELETE";
const ALLOW_HEADERS = "Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, X-Request-Id";
const EXPOSE_HEADERS =
  "ETag, Location, Retry-After, X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset";
/** Browsers cache an answered preflight this long (seconds). */
const PREFLIGHT_MAX_AGE = "600";

/** The Access-Control-Allow-Origin value for `origin`, or null when it may not call. */
export function allowedOrigin(policy: CorsPolicy, origin: string | undefined): string | null {
  if (origin === undefined) return null;
  if (policy.origins.includes("*")) return "*";
  return policy.origins.includes(origin) ? origin : null;
}

/**
 * Headers of an actual (not preflight) response to an allowed origin. Credentials are bearer
 * tokens, never cookies, so Allow-Credentials is not sent.
 */
export function corsResponseHeaders(allowed: string): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": allowed,
    "Access-Control-Expose-Headers": EXPOSE_HEADERS,
    Vary: "Origin",
  };
}

export function corsPreflightHeaders(allowed: string): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": allowed,
    "Access-Control-Allow-Methods": ALLOW_METHODS,
    "Access-Control-Allow-Headers": ALLOW_HEADERS,
    "Access-Control-Max-Age": PREFLIGHT_MAX_AGE,
    Vary: "Origin",
  };
}

export function isPreflight(method: string, headers: Headers): boolean {
  return method === "OPTIONS" && headers.has("origin") && headers.has("access-control-request-method");
}
