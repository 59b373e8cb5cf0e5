import type { ApiKeyRow, IdempotencyRow } from "./service-db.js";

/** The server's rows as both databases return them (snake_case columns), and their API shapes. */

export interface KeyRecord {
  id: string;
  user_id: string;
  name: string;
  key_hash: string;
  created_at: string;
  revoked_at: string | null;
  expires_at: string | null;
  last_used_at: string | null;
}

export interface IdempotencyRecord {
  request_hash: string;
  created_at: string;
  status: number;
  body: string | null;
  content_type: string | null;
  etag: string | null;
  session_id: string | null;
}

export function toKey(record: KeyRecord): ApiKeyRow {
  return {
    id: record.id,
    userId: record.user_id,
    name: record.name,
    keyHash: record.key_hash,
    createdAt: record.created_at,
    revokedAt: record.revoked_at,
    expiresAt: record.expires_at,
    lastUsedAt: record.last_used_at,
  };
}

export function toIdempotency(record: IdempotencyRecord): IdempotencyRow {
  const response = {
    status: Number(record.status),
    body: record.body ?? "",
    contentType: record.content_type ?? "application/json",
    etag: record.etag,
  };
  return {
    requestHash: record.request_hash,
    createdAt: record.created_at,
    response,
    sessionId: record.session_id,
  };
}
