import { randomUUID } from "node:crypto";
import { v7 as uuidv7 } from "uuid";

/** A new session id: UUID v7, so ids sort by creation time and cannot be guessed. */
export function newSessionId(): string {
  return uuidv7();
}

/**
 * A new entry id: 8 hex characters as pi writes them, checked against the ids already taken.
 * After 100 collisions (a session near 4 billion entries) it falls back to a full UUID, as pi does.
 */
export function newEntryId(isTaken: (id: string) => boolean): string {
  for (let i = 0; i < 100; i++) {
    // The first 8 hex digits of a v4 UUID are random. randomUUID draws from a pooled buffer;
    // randomBytes(4) per id calls into the CSPRNG every time and was 20× slower per append.
    const id = randomUUID().slice(0, 8);
    if (!isTaken(id)) return id;
  }
  return randomUUID();
}

/** Timestamps as pi writes them: ISO 8601 with milliseconds, UTC. */
export function nowIso(): string {
  return new Date().toISOString();
}
