import type { ProviderErrorEvent, Usage } from "../provider.js";

/**
 * HTTP statuses worth another attempt: rate limited, server errors, Anthropic's "overloaded" (529).
 * Anything else (400, 401, 404…) fails the same way every time.
 */
export const RETRYABLE_STATUSES: readonly number[] = [408, 429, 500, 502, 503, 504, 529];

/** Anthropic's in-stream error types that mean "try again later", not "your request is wrong". */
const RETRYABLE_ERROR_TYPES = new Set([
  "overloaded_error",
  "rate_limit_error",
  "api_error",
  "timeout_error",
  "server_error",
]);

/** How fetch and undici say a connection failed or dropped (not: a bad URL, a bad argument). */
const DROPPED = /fetch failed|terminated|socket|other side closed|ECONN|ETIMEDOUT|EPIPE|EAI_AGAIN|UND_ERR/i;

/** A non-2xx answer as an error event: status, as much of the provider's text as it gave, retry-after. */
export async function responseError(response: Response): Promise<ProviderErrorEvent> {
  const text = await response.text().catch(() => "");
  const retryAfterMs = retryAfter(response.headers);
  return {
    type: "error",
    message: `HTTP ${response.status}${text ? `: ${text.slice(0, 2000)}` : ""}`,
    aborted: false,
    status: response.status,
    retryable: RETRYABLE_STATUSES.includes(response.status),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
}

/**
 * The event stream of an answer to a streamed request, or the error it is instead: not 2xx, no
 * body, or a 2xx whose content type says it is something else (a proxy's or a captive portal's
 * HTML page, a base URL that points at a web site, a server that ignored `stream: true`). Such a
 * 2xx fails the same way every time: it is not retried, and its error names what came instead.
 */
export async function eventStreamOf(
  response: Response,
): Promise<ReadableStream<Uint8Array> | ProviderErrorEvent> {
  if (!response.ok || !response.body) return responseError(response);
  const type = response.headers.get("content-type");
  if (type === null || /^\s*text\/event-stream/i.test(type)) return response.body;
  const text = await response.text().catch(() => "");
  return {
    type: "error",
    message: `HTTP ${response.status} answered with ${type}, not an event stream (is the base URL right?)${text ? `: ${text.slice(0, 500)}` : ""}`,
    aborted: false,
    status: response.status,
    retryable: false,
  };
}

/**
 * A thrown fetch or body-read failure: an abort when our signal fired, else a dropped connection
 * (fetch's "fetch failed", undici's "terminated", ECONNRESET…), which another attempt may survive.
 */
export function thrownError(
  error: unknown,
  signal: AbortSignal | undefined,
  usage?: Usage,
): ProviderErrorEvent {
  const aborted = signal?.aborted === true || (error instanceof Error && error.name === "AbortError");
  const message = error instanceof Error ? error.message : String(error);
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const dropped = DROPPED.test(`${message} ${String(cause?.code ?? "")} ${String(cause?.message ?? "")}`);
  return { type: "error", message, aborted, usage, retryable: !aborted && dropped };
}

/** A stream the server ended cleanly before its final event: never a complete reply. */
export function truncatedError(what: string, usage?: Usage): ProviderErrorEvent {
  return {
    type: "error",
    message: `The provider stream ended before ${what}: the reply is incomplete`,
    aborted: false,
    usage,
    retryable: true,
  };
}

/** An error event inside a stream (`{"error": {...}}` or Anthropic's `event: error`). */
export function streamError(error: { type?: string; message?: string } | undefined, usage?: Usage) {
  const event: ProviderErrorEvent = {
    type: "error",
    message: error?.message ?? (error ? JSON.stringify(error) : "provider error"),
    aborted: false,
    usage,
    retryable: error?.type !== undefined && RETRYABLE_ERROR_TYPES.has(error.type),
  };
  return event;
}

/** `retry-after-ms` (OpenAI) or `retry-after` in seconds or as an HTTP date; undefined when absent. */
export function retryAfter(headers: Headers): number | undefined {
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.has("retry-after-ms") && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
