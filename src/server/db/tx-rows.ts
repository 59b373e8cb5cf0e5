import { type StoreFlow, wait } from "../../store/engine/step.js";
import type { TxSql } from "../../store/store.js";
import type { DeletionRow, StoredResponse } from "./service-db.js";

/**
 * The server's rows that are written with a store write, in its transaction (see the store's
 * `InTransaction`): a remembered response, an audit row, the forgetting of a purged session's
 * responses. Written as flows over `TxSql`, so they run synchronously on SQLite (inside
 * better-sqlite3's transaction callback) and with promises on PostgreSQL; on the server's own
 * connection when the store is not in the same database.
 */

const SQL = {
  storeResponse: `INSERT INTO idempotency_keys
      (owner, key, request_hash, created_at, status, body, content_type, etag, session_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
  recordDeletion:
    "INSERT INTO deletion_audit (owner, session_id, action, actor, via, at) VALUES ($1, $2, $3, $4, $5, $6)",
  forgetSession: "DELETE FROM idempotency_keys WHERE owner = $1 AND session_id = $2",
} as const;

/** A response to remember under a user's Idempotency-Key. */
export interface RememberedResponse {
  owner: string;
  key: string;
  requestHash: string;
  at: string;
  response: StoredResponse;
  /** The session the response tells about, so a purge can forget it. */
  sessionId: string | null;
}

/** Stores the response; false when the key was taken meanwhile (another request with it committed). */
export function* rememberResponse(sql: TxSql, row: RememberedResponse): StoreFlow<boolean> {
  const { status, body, contentType, etag } = row.response;
  const params = [
    row.owner,
    row.key,
    row.requestHash,
    row.at,
    status,
    body,
    contentType,
    etag,
    row.sessionId,
  ];
  return (yield* wait(sql.run(SQL.storeResponse, params))) > 0;
}

export function* recordDeletion(sql: TxSql, row: DeletionRow): StoreFlow<void> {
  const { owner, sessionId, action, actor, via, at } = row;
  yield* wait(sql.run(SQL.recordDeletion, [owner, sessionId, action, actor, via, at]));
}

/** Forgets every remembered response about a session (its name, cwd, first message): a purge. */
export function* forgetSession(sql: TxSql, owner: string, sessionId: string): StoreFlow<void> {
  yield* wait(sql.run(SQL.forgetSession, [owner, sessionId]));
}
