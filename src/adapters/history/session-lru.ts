/**
 * What a handle keeps per session, for the few sessions it served last: set moves a session to
 * the end, and past `capacity` the least recently set one is let go.
 */
export class SessionLru<T> {
  private readonly kept = new Map<string, T>();

  constructor(private readonly capacity: number) {}

  get(owner: string, sessionId: string): T | undefined {
    return this.kept.get(sessionKey(owner, sessionId));
  }

  set(owner: string, sessionId: string, value: T): void {
    const key = sessionKey(owner, sessionId);
    this.kept.delete(key); // set again last: the map's order is the order of use
    this.kept.set(key, value);
    if (this.kept.size > this.capacity) this.kept.delete(this.kept.keys().next().value as string);
  }

  delete(owner: string, sessionId: string): void {
    this.kept.delete(sessionKey(owner, sessionId));
  }
}

/** One session of one owner as a map key. */
export function sessionKey(owner: string, sessionId: string): string {
  return `${owner}\u0000${sessionId}`;
}

/** Entries are plain JSON values, so this walks objects and arrays only. */
export function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}
