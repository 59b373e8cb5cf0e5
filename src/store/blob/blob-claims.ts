import { randomUUID } from "node:crypto";
import { type StoreFlow, wait } from "../engine/step.js";
import type { TxSql } from "../store.js";

/**
 * Blob claims: the database's record of which blobs an owner may reference, and the lock that keeps
 * a garbage collection from deleting an object an append is about to reference. Correct without
 * conditional writes (s3rver and others ignore them), on SQLite and PostgreSQL alike:
 *
 * 1. **Pre-claim** (a transaction of its own, before any byte is uploaded): the claim row
 *    `(owner, sha256)` is inserted `live` with a fresh `token`, or, when live already, its
 *    `claimed_at` is refreshed (the token stays). A row that a collection marked `deleting` is
 *    waited for (or taken over once its lease is over).
 * 2. **Upload**: `has`, and `put` when missing. The appender has the bytes.
 * 3. **Confirm** (inside the append's transaction, which locks the claim row): the row must still
 *    be `live` with the token read in step 1, or the append starts again from step 1. Only then
 *    is the reference (`blob_refs`: session, sha256) inserted, in the same commit as the entries.
 *
 * A collection marks a row `deleting` (new token) only when no session of the owner references it
 * and it was claimed longer ago than the grace period, in one statement that re-checks both; it
 * deletes the object after that commit and removes the row after the delete. So once a row is
 * `deleting`, no append can commit a reference to it (step 3 fails and retries; step 1 waits for
 * the row to go, and then uploads again). A crash leaves at worst an unreferenced object or row,
 * which the next collection removes; never a reference to a missing object.
 */
export interface Claim {
  owner: string;
  sha256: string;
  token: string;
}

/** A claim lost to a collection between pre-claim and commit: the write is prepared again. */
export class ClaimLostError extends Error {
  constructor(readonly sha256: string) {
    super(`The claim on blob ${sha256} was taken by a collection; retry`);
  }
}

export const CLAIM_SQL = {
  upsert: `INSERT INTO blob_claims (owner, sha256, size, claimed_at, state, token)
    VALUES ($1, $2, $3, $4, 'live', $5)
    ON CONFLICT (owner, sha256) DO UPDATE SET claimed_at = excluded.claimed_at
    WHERE blob_claims.state = 'live'`,
  read: "SELECT state, token, claimed_at FROM blob_claims WHERE owner = $1 AND sha256 = $2",
  takeOver: `UPDATE blob_claims SET state = 'live', token = $1, claimed_at = $2
    WHERE owner = $3 AND sha256 = $4 AND state = 'deleting' AND token = $5`,
  confirm: `UPDATE blob_claims SET claimed_at = $1
    WHERE owner = $2 AND sha256 = $3 AND state = 'live' AND token = $4`,
  reference: "INSERT INTO blob_refs (session_pk, sha256) VALUES ($1, $2) ON CONFLICT DO NOTHING",
  sessionPk: "SELECT pk FROM sessions WHERE owner = $1 AND id = $2",
} as const;

interface ClaimRow {
  state: string;
  token: string;
  claimed_at: string;
}

/**
 * Step 1 for one blob: its claim token, or null when a collection is deleting it right now (wait
 * and try again). A `deleting` mark older than `leaseMs` is a collection that died: taken over.
 */
export function* preClaim(
  sql: TxSql,
  owner: string,
  blob: { sha256: string; size: number },
  now: Date,
  leaseMs: number,
): StoreFlow<string | null> {
  const at = now.toISOString();
  yield* wait(sql.run(CLAIM_SQL.upsert, [owner, blob.sha256, blob.size, at, randomUUID()]));
  const [row] = yield* wait(sql.all<ClaimRow>(CLAIM_SQL.read, [owner, blob.sha256]));
  if (!row) return null;
  if (row.state === "live") return row.token;
  if (row.claimed_at >= new Date(now.getTime() - leaseMs).toISOString()) return null;
  const token = randomUUID();
  const taken = yield* wait(sql.run(CLAIM_SQL.takeOver, [token, at, owner, blob.sha256, row.token]));
  return taken === 1 ? token : null;
}

/** Step 3: inside the write, checks every claim and references each blob from the session. */
export function* confirmClaims(
  sql: TxSql,
  sessionPk: unknown,
  claims: readonly Claim[],
  now: Date,
): StoreFlow<void> {
  const at = now.toISOString();
  // One lock order for every transaction (by hash), so two appends sharing blobs never deadlock.
  for (const claim of [...claims].sort((a, b) => (a.sha256 < b.sha256 ? -1 : 1))) {
    const held = yield* wait(sql.run(CLAIM_SQL.confirm, [at, claim.owner, claim.sha256, claim.token]));
    if (held !== 1) throw new ClaimLostError(claim.sha256);
    yield* wait(sql.run(CLAIM_SQL.reference, [sessionPk, claim.sha256]));
  }
}

/** The row key of a session, for a confirm inside `insertSession`'s transaction. */
export function* sessionPkOf(sql: TxSql, owner: string, sessionId: string): StoreFlow<unknown> {
  const [row] = yield* wait(sql.all<{ pk: unknown }>(CLAIM_SQL.sessionPk, [owner, sessionId]));
  return row?.pk;
}
