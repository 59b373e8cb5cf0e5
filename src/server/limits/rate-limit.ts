/** Token bucket settings: `perSecond` sustained, up to `burst` at once. */
export interface RateLimitOptions {
  /** @default 100 */
  perSecond: number;
  /** @default 200 */
  burst: number;
}

interface Bucket {
  tokens: number;
  updated: number;
}

/**
 * One token bucket per credential, in this instance's memory (several instances each allow the
 * rate: a limit per instance, stated in docs/server.md). Idle buckets are dropped so the map stays small.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private lastSweep = 0;

  constructor(
    private readonly options: RateLimitOptions,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes one token; returns 0 when allowed, else the seconds to wait before retrying. */
  take(credentialId: string): number {
    const now = this.now();
    this.sweep(now);
    const bucket = this.buckets.get(credentialId) ?? { tokens: this.options.burst, updated: now };
    const refill = ((now - bucket.updated) / 1000) * this.options.perSecond;
    bucket.tokens = Math.min(this.options.burst, bucket.tokens + refill);
    bucket.updated = now;
    this.buckets.set(credentialId, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.options.perSecond));
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    const fullAfterMs = (this.options.burst / this.options.perSecond) * 1000;
    for (const [id, bucket] of this.buckets) if (now - bucket.updated > fullAfterMs) this.buckets.delete(id);
  }
}
