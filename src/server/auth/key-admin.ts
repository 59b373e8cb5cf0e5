import { ValidationError } from "../../core/errors.js";
import type { ApiKeyRow, ServiceDb } from "../db/service-db.js";
import { HttpError } from "../http/http-error.js";
import { generateApiKey } from "./api-keys.js";
import { DEFAULT_KEY_POLICY, type KeyLimits, keyExpiry } from "./key-limits.js";

/**
 * Creates and stores a key for `userId`; the plain key is returned once and never stored. Made
 * while serving a request, `limits` must be `requestKeyLimits` (key-limits.ts): it expires no later
 * than that request's credential and counts against the user's cap. Left out, only the default cap
 * bounds it: for the operator's command line and tests, never a route.
 */
export async function createApiKey(
  db: ServiceDb,
  userId: string,
  name: string,
  now: Date = new Date(),
  limits: KeyLimits = {},
): Promise<{ key: string; row: ApiKeyRow }> {
  if (userId.length === 0 || userId.length > 256) {
    throw new ValidationError("invalid_argument", "A user id of 1-256 characters is required");
  }
  const expiresAt = keyExpiry(limits, now);
  if (expiresAt !== null && expiresAt <= now.toISOString()) {
    throw new HttpError(403, "credential_expiring", "The credential expires now: no key can outlive it");
  }
  const cap = limits.maxPerUser ?? DEFAULT_KEY_POLICY.maxPerUser;
  const { id, key, hash } = generateApiKey();
  const row: ApiKeyRow = {
    id,
    userId,
    name,
    keyHash: hash,
    createdAt: now.toISOString(),
    revokedAt: null,
    expiresAt,
    lastUsedAt: null,
  };
  if (!(await db.insertKeyUnderCap(row, cap, now.toISOString()))) {
    throw new HttpError(409, "too_many_keys", `A user may hold at most ${cap} live keys: revoke one first`);
  }
  return { key, row };
}
