import { AsyncLocalStorage } from "node:async_hooks";
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

const creating = new AsyncLocalStorage<KeyLimits>();

/**
 * Runs a request's work so that any key made during it is bounded by the request's credential:
 * a JWT valid for five minutes cannot leave behind a key that works for ever, whichever code path
 * makes the key. Outside a request (the operator's `keys create`) no creator bounds it.
 */
export function withKeyCreator<T>(principal: Principal, policy: KeyPolicy, work: () => T): T {
  return creating.run({ ...policy, creatorExpiresAt: principal.expiresAt ?? null }, work);
}

/** The limits of the request in progress, or none (the operator's command line). */
export function currentKeyLimits(): KeyLimits {
  return creating.getStore() ?? {};
}

/** The earliest of the creator's expiry and now + max age; null when neither is set. */
export function keyExpiry(limits: KeyLimits, now: Date): string | null {
  const candidates: number[] = [];
  if (limits.creatorExpiresAt) candidates.push(Date.parse(limits.creatorExpiresAt));
  if (limits.maxAgeMs !== undefined) candidates.push(now.getTime() + limits.maxAgeMs);
  return candidates.length === 0 ? null : new Date(Math.min(...candidates)).toISOString();
}
