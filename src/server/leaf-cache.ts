import type { WriteResult } from "../store/store.js";

/**
 * The last known (revision, leaf) of recently written sessions, so an append under the leaf can
 * skip reading it first. Only a hint: the append names the cached revision, and if another
 * instance wrote in between, the store answers with a conflict and the append re-reads and retries.
 */
export class LeafCache {
  private readonly entries = new Map<string, WriteResult>();

  constructor(private readonly capacity = 10_000) {}

  get(owner: string, sessionId: string): WriteResult | undefined {
    return this.entries.get(key(owner, sessionId));
  }

  remember(owner: string, sessionId: string, result: WriteResult): void {
    const k = key(owner, sessionId);
    this.entries.delete(k);
    this.entries.set(k, { revision: result.revision, leafId: result.leafId });
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  forget(owner: string, sessionId: string): void {
    this.entries.delete(key(owner, sessionId));
  }
}

function key(owner: string, sessionId: string): string {
  return `${owner}\u0000${sessionId}`;
}
