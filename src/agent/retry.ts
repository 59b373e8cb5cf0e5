import type { ProviderErrorEvent } from "./provider.js";

/**
 * When a failed model call is tried again. Only errors a provider marks `retryable` are: HTTP 408,
 * 429, 500, 502, 503, 504 and 529, an overloaded or rate-limit error inside the stream, a dropped
 * connection, a stream the server ended before its final event. A 400 or 401 fails at once.
 */
export interface RetryPolicy {
  /** Attempts after the first; 0 turns retrying off. @default 3 */
  maxRetries: number;
  /** Wait before the first retry, doubled for each next one. @default 2000 */
  baseDelayMs: number;
  /**
   * The longest wait. A server asking (by `retry-after`) for a longer one gets no retry: the error
   * is reported at once instead of a silent pause of minutes. @default 60000
   */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 3,
  baseDelayMs: 2000,
  maxDelayMs: 60_000,
});

/** The policy with the caller's overrides; `false` means no retries. */
export function retryPolicy(options: Partial<RetryPolicy> | false | undefined): RetryPolicy {
  if (options === false) return { ...DEFAULT_RETRY_POLICY, maxRetries: 0 };
  const defined = Object.entries(options ?? {}).filter(([, v]) => v !== undefined);
  return { ...DEFAULT_RETRY_POLICY, ...Object.fromEntries(defined) };
}

/**
 * The wait before retry number `retry` (1-based) of a call that failed with `error`, or undefined
 * when it is not retried: not retryable, retries used up, or the server wants a longer wait than
 * the policy allows. The server's `retry-after` wins over the backoff.
 */
export function retryDelay(
  policy: RetryPolicy,
  retry: number,
  error: ProviderErrorEvent,
): number | undefined {
  if (error.aborted || !error.retryable || retry > policy.maxRetries) return undefined;
  const delay = error.retryAfterMs ?? policy.baseDelayMs * 2 ** (retry - 1);
  if (error.retryAfterMs !== undefined && delay > policy.maxDelayMs) return undefined;
  return Math.min(delay, policy.maxDelayMs);
}

/** Waits `ms`, or less when `signal` aborts. Resolves true when the full wait passed. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (completed: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(completed);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
