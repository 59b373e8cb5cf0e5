import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * API keys look like `st_<id>_<secret>`: the id (public, 12 hex chars) finds the row, the secret
 * (32 random bytes) is what proves possession. Only sha256 of the whole key is stored, so a leaked
 * database does not leak usable keys; 256 bits of entropy make a salt and slow hashing unnecessary.
 */
const KEY_PATTERN = /^st_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

export interface GeneratedKey {
  id: string;
  key: string;
  hash: string;
}

export function generateApiKey(): GeneratedKey {
  const id = randomBytes(6).toString("hex");
  const key = `st_${id}_${randomBytes(32).toString("base64url")}`;
  return { id, key, hash: hashApiKey(key) };
}

function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** The key's public id, or null when the text is not shaped like one of our keys. */
export function apiKeyId(key: string): string | null {
  return KEY_PATTERN.exec(key)?.[1] ?? null;
}

export function looksLikeApiKey(token: string): boolean {
  return token.startsWith("st_");
}

/** Constant-time comparison of a presented key with a stored hash. */
export function keyMatches(key: string, storedHash: string): boolean {
  const a = Buffer.from(hashApiKey(key), "hex");
  const b = Buffer.from(storedHash, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}
