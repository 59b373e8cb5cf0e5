import { setTimeout as sleep } from "node:timers/promises";
import { SessionTreeApiError } from "../client/errors.js";
import type { SyncRemote } from "./session-sync.js";

/** One wait for the service's rate limit, as the progress output shows it. */
export interface RateLimitWait {
  /** Seconds waited before the retry (the answer's `Retry-After`, else a backoff). */
  seconds: number;
  /** Which retry of this request follows the wait (1-based), and how many are allowed. */
  retry: number;
  maxRetries: number;
}

export interface RateLimitPolicy {
  /** Retries of one request before the 429 ends the run. @default 5 */
  maxRetries?: number;
  /** A `Retry-After` longer than this ends the run instead of stalling it. @default 60 */
  maxWaitSeconds?: number;
  /** Called before each wait (the CLI prints a line). */
  onWait?: (wait: RateLimitWait) => void;
  /** Tests shorten the waits. */
  sleepMs?: (ms: number) => Promise<unknown>;
}

/**
 * The sync's calls, each retried after a 429 (the service's rate limit, or too many whole reads at
 * once) once the answer's `Retry-After` has passed. A 429 is answered before any work, so retrying
 * any call is safe (and every call of a sync is idempotent anyway). A bounded number of retries, of
 * bounded waits: a service that keeps refusing still ends the run, which the next one resumes.
 */
export function retryingOnRateLimit(remote: SyncRemote, policy: RateLimitPolicy = {}): SyncRemote {
  const retried =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      withRetries(() => call(...args), policy);
  return {
    syncState: retried(remote.syncState.bind(remote)),
    getSession: retried(remote.getSession.bind(remote)),
    putSyncSession: retried(remote.putSyncSession.bind(remote)),
    readEntries: retried(remote.readEntries.bind(remote)),
    syncAppend: retried(remote.syncAppend.bind(remote)),
    setLeaf: retried(remote.setLeaf.bind(remote)),
  };
}

async function withRetries<R>(call: () => Promise<R>, policy: RateLimitPolicy): Promise<R> {
  const maxRetries = policy.maxRetries ?? 5;
  for (let retry = 1; ; retry++) {
    try {
      return await call();
    } catch (error) {
      const seconds = retry <= maxRetries ? waitFor(error, retry, policy) : undefined;
      if (seconds === undefined) throw error;
      policy.onWait?.({ seconds, retry, maxRetries });
      await (policy.sleepMs ?? sleep)(seconds * 1000);
    }
  }
}

/** Seconds to wait before retrying after `error`; undefined: not a rate limit, or too long a wait. */
function waitFor(error: unknown, retry: number, policy: RateLimitPolicy): number | undefined {
  if (!(error instanceof SessionTreeApiError) || error.status !== 429) return undefined;
  const maxWait = policy.maxWaitSeconds ?? 60;
  // No usable Retry-After (a proxy's 429): back off 1, 2, 4… seconds.
  const seconds = error.retryAfter ?? Math.min(2 ** (retry - 1), maxWait);
  return seconds <= maxWait ? seconds : undefined;
}
