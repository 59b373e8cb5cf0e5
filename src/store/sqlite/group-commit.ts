import type { SqliteDatabase } from "./sqlite-config.js";

interface QueuedWrite {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: writes queued in one turn of the event loop share one BEGIN IMMEDIATE … COMMIT,
 * each inside its own savepoint, so one write's error (a conflict, a bad batch) undoes only that
 * write. A commit is the costly part of a small write; concurrent requests share it.
 */
export class GroupCommit {
  private queue: QueuedWrite[] = [];

  /** `connection` is asked at flush time: a store closed meanwhile fails the queued writes. */
  constructor(private readonly connection: () => SqliteDatabase) {}

  /** Runs `work` (synchronous: it runs inside the transaction) in the next shared transaction. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.queue.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      const db = this.connection();
      db.transaction(() => {
        for (const item of batch) {
          try {
            outcomes.push({ ok: true, value: db.transaction(item.work)() });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      }).immediate();
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    for (const [i, item] of batch.entries()) {
      const outcome = outcomes[i];
      if (outcome?.ok) item.resolve(outcome.value);
      else item.reject(outcome?.error);
    }
  }
}
