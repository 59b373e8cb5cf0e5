/**
 * Requests whose handler has not finished. A connection can end before its handler does (the
 * client went away, or the grace period cut it), and the handler then still works on the
 * databases: they close only once no handler is left, so none of them meets a closed store
 * halfway through its work.
 */
export class InFlight {
  private count = 0;
  private readonly waiters = new Set<() => void>();

  /** `work` counted until it settles; what it gives, unchanged. */
  track<T>(work: T | Promise<T>): T | Promise<T> {
    if (!(work instanceof Promise)) return work;
    this.count++;
    return work.finally(() => {
      this.count--;
      if (this.count === 0) for (const wake of this.waiters) wake();
    });
  }

  /** Resolves when no handler is running, or after `timeoutMs` whatever is left. */
  idle(timeoutMs: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.waiters.add(done);
    });
  }
}
