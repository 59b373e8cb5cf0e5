import { ValidationError } from "../../core/errors.js";
import type { ApiKeyRow, ServiceDb } from "../db/service-db.js";
import { generateApiKey } from "./api-keys.js";

/** Creates and stores a key for `userId`; the plain key is returned once and never stored. */
export async function createApiKey(
  db: ServiceDb,
  userId: string,
  name: string,
  now: Date = new Date(),
): Promise<{ key: string; row: ApiKeyRow }> {
  if (userId.length === 0 || userId.length > 256) {
    throw new ValidationError("invalid_argument", "A user id of 1-256 characters is required");
  }
  const { id, key, hash } = generateApiKey();
  const row: ApiKeyRow = { id, userId, name, keyHash: hash, createdAt: now.toISOString(), revokedAt: null };
  await db.insertKey(row);
  return { key, row };
}
