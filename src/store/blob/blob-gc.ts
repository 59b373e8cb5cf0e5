import { randomUUID } from "node:crypto";
import { type StoreFlow, wait } from "../engine/step.js";
import type { TxSql } from "../store.js";
import type { SqlPayloads } from "./sql-payloads.js";

export interface CollectOptions {
  /** Only this owner's blobs (after a purge); default: every owner. */
  owner?: string;
  /** Overrides the store's grace period (tests, an operator emptying a bucket). */
  graceMs?: number;
  now?: Date;
}

export interface CollectReport {
  /** Objects deleted whose claim no session referenced any more. */
  unreferenced: number;
  /** Objects found in the bucket with no claim at all (an upload whose claim a collection took). */
  orphans: number;
}

/** No session of the claim's owner, live or soft-deleted (or archived), references the blob. */
const UNREFERENCED = `NOT EXISTS (SELECT 1 FROM blob_refs r JOIN sessions s ON s.pk = r.session_pk
      WHERE r.sha256 = blob_claims.sha256 AND s.owner = blob_claims.owner)`;
// "Claimed at least the grace period ago": with a grace of 0, a claim of this very millisecond too.
const COLLECTABLE = `((state = 'live' AND claimed_at <= $2) OR (state = 'deleting' AND claimed_at < $3))`;

const GC_SQL = {
  candidatesOf: `SELECT owner, sha256, token, claimed_at FROM blob_claims WHERE owner = $1 AND ${COLLECTABLE} AND ${UNREFERENCED}`,
  candidates: `SELECT owner, sha256, token, claimed_at FROM blob_claims WHERE owner <> $1 AND ${COLLECTABLE} AND ${UNREFERENCED}`,
  /** Re-checks everything in the statement that takes the row: a concurrent append's confirm wins or loses whole. */
  mark: `UPDATE blob_claims SET state = 'deleting', token = $1, claimed_at = $2
    WHERE owner = $3 AND sha256 = $4 AND token = $5
      AND ((state = 'live' AND claimed_at <= $6) OR (state = 'deleting' AND claimed_at < $7)) AND ${UNREFERENCED}`,
  /** An object with no claim row: taken as `deleting` only if no claim appeared meanwhile. */
  markOrphan: `INSERT INTO blob_claims (owner, sha256, size, claimed_at, state, token)
    VALUES ($1, $2, $3, $4, 'deleting', $5) ON CONFLICT (owner, sha256) DO NOTHING`,
  release: "DELETE FROM blob_claims WHERE owner = $1 AND sha256 = $2 AND token = $3 AND state = 'deleting'",
  /** A delete that failed: the claim is live again as it was (same age), for the next collection. */
  handBack: `UPDATE blob_claims SET state = 'live', token = $1, claimed_at = $2
    WHERE owner = $3 AND sha256 = $4 AND token = $5 AND state = 'deleting'`,
} as const;

interface Candidate {
  owner: string;
  sha256: string;
  token: string;
  claimed_at: string;
}

/**
 * Deletes the blobs no session of their owner references (live, soft-deleted or archived ones all
 * count), claimed longer ago than the grace period, and objects with no claim at all. Each object is
 * deleted only while its claim row is marked `deleting` by this collection (see blob-claims.ts), so
 * an append never commits a reference to an object being deleted. Safe to run from several
 * processes at once and to interrupt anywhere: what is left is collected by the next run.
 */
export async function collectBlobs(p: SqlPayloads, options: CollectOptions = {}): Promise<CollectReport> {
  const now = options.now ?? new Date();
  const grace = iso(now, options.graceMs ?? p.graceMs);
  const lease = iso(now, p.leaseMs);
  const owner = options.owner;
  const candidates = await p.runSql((sql) =>
    all<Candidate>(sql, owner === undefined ? GC_SQL.candidates : GC_SQL.candidatesOf, [
      owner ?? "",
      grace,
      lease,
    ]),
  );
  let unreferenced = 0;
  for (const candidate of candidates) {
    const token = randomUUID();
    const params = [
      token,
      now.toISOString(),
      candidate.owner,
      candidate.sha256,
      candidate.token,
      grace,
      lease,
    ];
    const marked = await p.runSql((sql) => run(sql, GC_SQL.mark, params));
    if (marked !== 1) continue; // an append claimed or referenced it meanwhile
    const handBack = [randomUUID(), candidate.claimed_at, candidate.owner, candidate.sha256, token];
    await deleteHeld(p, candidate.owner, candidate.sha256, token, [GC_SQL.handBack, handBack]);
    unreferenced++;
  }
  return { unreferenced, orphans: await collectOrphans(p, owner, now, grace) };
}

async function collectOrphans(
  p: SqlPayloads,
  owner: string | undefined,
  now: Date,
  grace: string,
): Promise<number> {
  let orphans = 0;
  for await (const blob of p.blobs.list(owner)) {
    if (blob.modifiedAt.toISOString() >= grace) continue; // an upload whose claim may be committing
    const token = randomUUID();
    const params = [blob.owner, blob.sha256, blob.size, now.toISOString(), token];
    const marked = await p.runSql((sql) => run(sql, GC_SQL.markOrphan, params));
    if (marked !== 1) continue;
    // A failed delete leaves no row: the object is an orphan again for the next run.
    await deleteHeld(p, blob.owner, blob.sha256, token, [GC_SQL.release, [blob.owner, blob.sha256, token]]);
    orphans++;
  }
  return orphans;
}

/**
 * Deletes the object under our `deleting` mark, then removes the mark (unless the lease ran out
 * first). When the delete fails (object storage down), `undo` gives the mark back at once, so the
 * next collection takes the blob and an append of the same bytes need not wait out the lease
 * meant for a collection that died; the error then ends this collection.
 */
async function deleteHeld(
  p: SqlPayloads,
  owner: string,
  sha256: string,
  token: string,
  [undoSql, undoParams]: [string, unknown[]],
): Promise<void> {
  const markedAt = Date.now();
  try {
    await p.blobs.delete(owner, sha256);
  } catch (error) {
    await p.runSql((sql) => run(sql, undoSql, undoParams));
    throw error;
  }
  // Past half the lease, an append may have taken the claim over: leave the row to the next run.
  if (Date.now() - markedAt > p.leaseMs / 2) return;
  await p.runSql((sql) => run(sql, GC_SQL.release, [owner, sha256, token]));
}

function iso(now: Date, agoMs: number): string {
  return new Date(now.getTime() - agoMs).toISOString();
}

function* all<T>(sql: TxSql, text: string, params: unknown[]): StoreFlow<T[]> {
  return yield* wait(sql.all<T>(text, params));
}

function* run(sql: TxSql, text: string, params: unknown[]): StoreFlow<number> {
  return yield* wait(sql.run(text, params));
}
