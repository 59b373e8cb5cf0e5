/** Two hex digits of every byte value: an id is four table reads. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));
/** Random bytes drawn 4 KiB at a time (1,024 ids), from the same CSPRNG as randomUUID. */
const pool = new Uint8Array(4096);
let used = pool.length;

/**
 * A new entry id: 8 hex characters as pi writes them, checked against the ids already taken.
 * After 100 collisions (a session near 4 billion entries) it falls back to a full UUID, as pi does.
 */
export function newEntryId(isTaken: (id: string) => boolean): string {
  for (let i = 0; i < 100; i++) {
    const id = randomHex8();
    if (!isTaken(id)) return id;
  }
  return globalThis.crypto.randomUUID();
}

/**
 * Eight random hex digits from a pooled buffer: pi's `randomUUID().slice(0, 8)` draws the same
 * 32 random bits, but formats a 36-character UUID first; this is about 5× cheaper, which an
 * in-memory append feels. WebCrypto's `getRandomValues`, not node:crypto, so core also runs in
 * the viewer's page. (randomBytes(4) per id called into the CSPRNG every time: 20× slower.)
 */
function randomHex8(): string {
  if (used === pool.length) {
    globalThis.crypto.getRandomValues(pool);
    used = 0;
  }
  const at = used;
  used += 4;
  return (
    (HEX[pool[at] as number] as string) +
    HEX[pool[at + 1] as number] +
    HEX[pool[at + 2] as number] +
    HEX[pool[at + 3] as number]
  );
}

let isoMs = Number.NaN;
let isoText = "";

/**
 * Timestamps as pi writes them: ISO 8601 with milliseconds, UTC. Appends in a burst share a
 * millisecond, so the string of the last one is kept: `Date.now()` is far cheaper than a Date and
 * its `toISOString()`, which cost as much as the rest of an in-memory append.
 */
export function nowIso(): string {
  const ms = Date.now();
  if (ms !== isoMs) {
    isoText = new Date(ms).toISOString();
    isoMs = ms;
  }
  return isoText;
}
