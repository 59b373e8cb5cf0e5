/**
 * A new entry id: 8 hex characters as pi writes them, checked against the ids already taken.
 * After 100 collisions (a session near 4 billion entries) it falls back to a full UUID, as pi does.
 */
export function newEntryId(isTaken: (id: string) => boolean): string {
  for (let i = 0; i < 100; i++) {
    // The first 8 hex digits of a v4 UUID are random. randomUUID draws from a pooled buffer;
    // randomBytes(4) per id calls into the CSPRNG every time and was 20× slower per append.
    // WebCrypto's, not node:crypto's, so core also runs in the viewer's page (Node 20 has it
    // global; 1e6 ids measured within 1.3× of node:crypto's).
    const id = globalThis.crypto.randomUUID().slice(0, 8);
    if (!isTaken(id)) return id;
  }
  return globalThis.crypto.randomUUID();
}

/** Timestamps as pi writes them: ISO 8601 with milliseconds, UTC. */
export function nowIso(): string {
  return new Date().toISOString();
}
