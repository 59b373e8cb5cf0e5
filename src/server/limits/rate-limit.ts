/** Token bucket settings: `perSecond` sustained, up to `burst` at once. */
export interface RateLimitOptions {
  /** @default 100 */
  perSecond: number;
  /** @default 200 */
  burst: number;
}

/** What one request's token left: the `RateLimit-*` headers (and `Retry-After` when refused). */
export interface RateVerdict {
  allowed: boolean;
  /** The bucket's size (RateLimit-Limit). */
  limit: number;
  /** Whole tokens left after this request (RateLimit-Remaining). */
  remaining: number;
  /** Seconds until the bucket is full again (RateLimit-Reset). */
  resetSeconds: number;
  /** Seconds until one token is there again; 0 when allowed (Retry-After). */
  retryAfter: number;
}

interface Bucket {
  tokens: number;
  updated: number;
}

/**
 * One token bucket per key (a user, or a client address for requests without a valid
 * credential), in this instance's memory (several instances each allow the rate: a limit per
 * instance, stated in docs/server.md). Idle buckets are dropped so the map stays small.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private lastSweep = 0;

  constructor(
    private readonly options: RateLimitOptions,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes one token; returns 0 when allowed, else the seconds to wait before retrying. */
  take(key: string): number {
    return this.consume(key).retryAfter;
  }

  /** Takes one token when there is one, and says what is left. */
  consume(key: string): RateVerdict {
    const bucket = this.refilled(key);
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    return this.verdict(bucket, allowed);
  }

  /** What `consume` would answer, without taking a token (a check before costly work). */
  peek(key: string): RateVerdict {
    const bucket = this.refilled(key);
    return this.verdict(bucket, bucket.tokens >= 1);
  }

  private refilled(key: string): Bucket {
    const now = this.now();
    this.sweep(now);
    const bucket = this.buckets.get(key) ?? { tokens: this.options.burst, updated: now };
    const refill = ((now - bucket.updated) / 1000) * this.options.perSecond;
    bucket.tokens = Math.min(this.options.burst, bucket.tokens + refill);
    bucket.updated = now;
    this.buckets.set(key, bucket);
    return bucket;
  }

  private verdict(bucket: Bucket, allowed: boolean): RateVerdict {
    const { burst, perSecond } = this.options;
    return {
      allowed,
      limit: burst,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((burst - bucket.tokens) / perSecond),
      retryAfter: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond)),
    };
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    const fullAfterMs = (this.options.burst / this.options.perSecond) * 1000;
    for (const [key, bucket] of this.buckets)
      if (now - bucket.updated > fullAfterMs) this.buckets.delete(key);
  }
}

/** The `RateLimit-*` headers (IETF httpapi draft names) and, on a refusal, `Retry-After`. */
export function rateLimitHeaders(verdict: RateVerdict): Record<string, string> {
  const headers: Record<string, string> = {
    "RateLimit-Limit": String(verdict.limit),
    "RateLimit-Remaining": String(verdict.remaining),
    "RateLimit-Reset": String(verdict.resetSeconds),
  };
  if (!verdict.allowed) headers["Retry-After"] = String(verdict.retryAfter);
  return headers;
}
