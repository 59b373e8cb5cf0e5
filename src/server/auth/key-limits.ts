import type { Principal } from "./principal.js";

/** What bounds a new API key. */
export interface KeyPolicy {
  /** Longest life of a key made through the API, in ms. Unset: bounded only by the creator. */
  maxAgeMs?: number;
  /** Most live (unrevoked, unexpired) keys per user. @default 100 */
  maxPerUser?: number;
}

export const DEFAULT_KEY_POLICY: Readonly<Required<Pick<KeyPolicy, "maxPerUser">>> = Object.freeze({
  maxPerUser: 100,
});

/** The limits for one key being made: the policy plus the expiry of the credential making it. */
export interface KeyLimits extends KeyPolicy {
  /** The creating credential's own expiry (ISO); the key never outlives it. */
  creatorExpiresAt?: string | null;
}

/**
 * The limits of a key made while serving a request: the server's policy, and the expiry of the
 * request's credential, so that a JWT valid for five minutes cannot leave behind a key that works
 * for ever. Passed explicitly by the route that makes keys (routes/keys.ts), not carried in an
 * AsyncLocalStorage: on Node 20 one makes every promise of the process pay an async hook.
 */
export function requestKeyLimits(principal: Principal, policy: KeyPolicy): KeyLimits {
  return { ...policy, creatorExpiresAt: principal.expiresAt ?? null };
}

/** The earliest of the creator's expiry and now + max age; null when neither is set. */
export function keyExpiry(limits: KeyLimits, now: Date): string | null {
  const candidates: number[] = [];
  if (limits.creatorExpiresAt) candidates.push(Date.parse(limits.creatorExpiresAt));
  if (limits.maxAgeMs !== undefined) candidates.push(now.getTime() + limits.maxAgeMs);
  return candidates.length === 0 ? null : expiryIso(Math.min(...candidates));
}

/** The latest time an ISO 8601 string of four-digit years can say. */
const LAST_TIME = Date.parse("9999-12-31T23:59:59.999Z");

/**
 * An expiry as stored and compared: as text, so a later year must not become "+010000-…", which
 * sorts before every four-digit year (a credential valid until year 10000 read as expired).
 */
export function expiryIso(ms: number): string {
  return new Date(Math.min(ms, LAST_TIME)).toISOString();
}
