/**
 * Serializes writes to one session within this instance: each write waits for the previous one.
 * Across instances the store's revisions keep writes correct; this queue only spares them the
 * conflicts (and retries) that racing requests on one instance would otherwise cause.
 */
export class SessionQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(owner: string, sessionId: string, work: () => Promise<T>): Promise<T> {
    const key = `${owner}\u0000${sessionId}`;
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
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
