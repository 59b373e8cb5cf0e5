/**
 * Tasks run one at a time per key, in call order; a failed one does not stop its key's queue. A key
 * is let go once it is idle, so the map holds only busy keys. The service serializes each session's
 * writes with it (server/session-queue.ts), and the adapters each handle's writes to a session
 * (adapters/history): a write reads, plans on what it read and names it, so two racing in one
 * process would make the later fail and plan again.
 */
export class KeyedQueue {
  /** The last task queued per key, settled or not. */
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `task` after every task queued before it for `key`. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
