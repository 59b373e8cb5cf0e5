/**
 * One ordered queue for every write of a session: each task starts after the previous one has
 * settled, so a tool result can never reach storage before its assistant message (pi #1717).
 * A failed task rejects its own promise and does not stop the queue.
 */
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T> | T): Promise<T> {
    const next = this.tail.then(() => task());
    this.tail = next.catch(() => undefined);
    return next;
  }

  /** Resolves when everything queued so far has settled. */
  drain(): Promise<void> {
    return this.tail.then(() => undefined);
  }
}
