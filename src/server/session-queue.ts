import { KeyedQueue } from "../core/keyed-queue.js";

/**
 * Serializes writes to one session within this instance: each write waits for the previous one.
 * Across instances the store's revisions keep writes correct; this queue only spares them the
 * conflicts (and retries) that racing requests on one instance would otherwise cause.
 */
export class SessionQueue {
  private readonly queue = new KeyedQueue();

  run<T>(owner: string, sessionId: string, work: () => Promise<T>): Promise<T> {
    return this.queue.run(`${owner}\u0000${sessionId}`, work);
  }
}
