/**
 * Writes to each session one at a time, in call order. A write reads the session, plans on what
 * it read and names it; two of one process planned on the same read would make the later one fail
 * and plan again, and with many at once (a server's concurrent runs on one conversation) most of
 * the work would be races lost. Queued, each plans on the one before it; races are left to writers
 * in other processes (or on other handles), which `retryOnRace` settles.
 */
export class WriteQueue {
  /** The last write queued per session, settled or not; a session is let go once it is idle. */
  private readonly last = new Map<string, Promise<unknown>>();

  /** Runs `write` after every write queued before it for `key`; a failed one does not stop the queue. */
  run<T>(key: string, write: () => Promise<T>): Promise<T> {
    const before = this.last.get(key) ?? Promise.resolve();
    const run = before.then(write);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.last.set(key, settled);
    void settled.then(() => {
      if (this.last.get(key) === settled) this.last.delete(key);
    });
    return run;
  }
}
