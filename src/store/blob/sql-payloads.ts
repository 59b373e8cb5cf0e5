import type { SessionEntry } from "../../core/entry.js";
import { ValidationError } from "../../core/errors.js";
import type { StoreDriver, WriteTx } from "../engine/driver.js";
import type { PayloadHooks, PreparedBatch } from "../engine/payload-hooks.js";
import { runFlow, type StoreFlow } from "../engine/step.js";
import type { SessionRow } from "../sql/rows.js";
import type { TxSql } from "../store.js";
import { type Claim, ClaimLostError, confirmClaims, preClaim, sessionPkOf } from "./blob-claims.js";
import { collectBlobs } from "./blob-gc.js";
import type { BlobStore } from "./blob-store.js";
import {
  inlineEntry,
  type OffloadedPayload,
  type OffloadPolicy,
  offloadEntry,
  refsOf,
} from "./payload-refs.js";
import { restoreArchived } from "./session-archive.js";

/** How a SQL store keeps payloads out of line (`SqliteStoreOptions.blobs`, `PostgresStoreOptions.blobs`). */
export interface BlobOptions {
  store: BlobStore;
  /** Which payloads leave the row (default: every image, text parts above 64 KiB). */
  offload?: Partial<OffloadPolicy>;
  /**
   * A blob claimed more recently than this is never collected, referenced or not: an append that
   * claimed it may still be uploading. @default 3_600_000 (1 h)
   */
  graceMs?: number;
  /**
   * A collection's mark on a claim (while it deletes the object) expires after this: a mark that
   * old is a collection that died, and an append takes the claim over. @default 600_000 (10 min)
   */
  leaseMs?: number;
}

const FETCH_CONCURRENCY = 16;

/** `PayloadHooks` for the SQL drivers: claims and references in the store's own tables. */
export class SqlPayloads implements PayloadHooks<SessionRow> {
  readonly policy: OffloadPolicy;
  readonly graceMs: number;
  readonly leaseMs: number;

  constructor(
    readonly driver: StoreDriver<SessionRow>,
    readonly blobs: BlobStore,
    options: Omit<BlobOptions, "store">,
  ) {
    this.policy = { textBytes: 64 * 1024, images: true, ...options.offload };
    this.graceMs = options.graceMs ?? 3_600_000;
    this.leaseMs = options.leaseMs ?? 600_000;
  }

  async prepare(owner: string, batch: readonly SessionEntry[]): Promise<PreparedBatch> {
    const taken: OffloadedPayload[] = [];
    const entries = batch.map((entry) => offloadEntry(entry, this.policy, taken));
    const claims = await this.claimAndUpload(owner, taken);
    return { entries, claims: [...claims, ...(await this.claimGiven(owner, entries, taken))] };
  }

  /**
   * References the caller sent as they are (entries read with `references: true`, written back):
   * claimed like any blob, then required to exist in this owner's namespace. Another owner's hash
   * is not there, so it answers exactly as a hash nobody has: `invalid_entry` (the caller's mistake).
   */
  private async claimGiven(
    owner: string,
    entries: SessionEntry[],
    taken: OffloadedPayload[],
  ): Promise<Claim[]> {
    const made = new Set(taken.map((payload) => payload.sha256));
    const given = new Map<string, { sha256: string; size: number }>();
    for (const entry of entries) {
      for (const ref of refsOf(entry)) if (!made.has(ref.sha256)) given.set(ref.sha256, ref);
    }
    if (given.size === 0) return [];
    for (const sha256 of given.keys()) {
      if (!isHash(sha256))
        throw new ValidationError("invalid_entry", "An entry references a blob by a malformed hash");
    }
    const claims = await this.claim(owner, [...given.values()]);
    for (const sha256 of given.keys()) {
      if (!(await this.blobs.has(owner, sha256))) {
        throw new ValidationError(
          "invalid_entry",
          `An entry references blob ${sha256}, which is not stored`,
          {
            details: { sha256 },
          },
        );
      }
    }
    return claims;
  }

  /** Steps 1 and 2 of blob-claims.ts: claims for the payloads, then each object made sure to exist. */
  async claimAndUpload(owner: string, payloads: readonly OffloadedPayload[]): Promise<Claim[]> {
    const unique = [...new Map(payloads.map((payload) => [payload.sha256, payload])).values()];
    if (unique.length === 0) return [];
    const claims = await this.claim(owner, unique.map(sizeOf));
    await eachLimited(unique, FETCH_CONCURRENCY, (payload) => this.blobs.put(owner, payload.bytes));
    return claims;
  }

  *confirmInWrite(tx: WriteTx<SessionRow>, ref: SessionRow, prepared: PreparedBatch): StoreFlow<void> {
    if (prepared.claims.length === 0) return;
    yield* confirmClaims(requireSql(tx.sql), ref.pk, prepared.claims, new Date());
  }

  *confirmInInsert(sql: TxSql, owner: string, sessionId: string, prepared: PreparedBatch): StoreFlow<void> {
    if (prepared.claims.length === 0) return;
    const pk = yield* sessionPkOf(sql, owner, sessionId);
    yield* confirmClaims(sql, pk, prepared.claims, new Date());
  }

  async resolve(owner: string, entries: SessionEntry[]): Promise<SessionEntry[]> {
    const hashes = new Set<string>();
    for (const entry of entries) for (const ref of refsOf(entry)) hashes.add(ref.sha256);
    if (hashes.size === 0) return entries;
    const bytes = new Map<string, Uint8Array>();
    await eachLimited([...hashes], FETCH_CONCURRENCY, async (sha256) => {
      bytes.set(sha256, await this.blobs.get(owner, sha256));
    });
    return entries.map((entry) => inlineEntry(entry, bytes));
  }

  restore(owner: string, sessionId: string): Promise<void> {
    return restoreArchived(this, owner, sessionId);
  }

  isClaimLost(error: unknown): boolean {
    return error instanceof ClaimLostError;
  }

  async afterPurge(owners: readonly string[]): Promise<void> {
    for (const owner of new Set(owners)) {
      try {
        await collectBlobs(this, { owner });
      } catch {
        // Left to the next collection: an unreferenced blob is the worst a failure here leaves.
      }
    }
  }

  /** A transaction of the driver's own, for claims, collections and archive bookkeeping. */
  runSql<T>(flow: (sql: TxSql) => StoreFlow<T>): Promise<T> {
    if (!this.driver.runSql) throw new Error(`${this.driver.kind}: no SQL transactions for blob claims`);
    return Promise.resolve(this.driver.runSql<T>((sql: TxSql) => runFlow(flow(sql))));
  }

  /** Pre-claims every blob (one transaction per round), waiting out collections that hold some. */
  private async claim(owner: string, payloads: Array<{ sha256: string; size: number }>): Promise<Claim[]> {
    const claims: Claim[] = [];
    // Claim rows are locked in hash order, as the confirms lock them (no deadlock between writers).
    let pending = [...payloads].sort((a, b) => (a.sha256 < b.sha256 ? -1 : 1));
    const leaseMs = this.leaseMs;
    const deadline = Date.now() + leaseMs + 60_000;
    while (pending.length > 0) {
      const now = new Date();
      const tokens = await this.runSql(function* (sql) {
        const answers: Array<string | null> = [];
        for (const p of pending) answers.push(yield* preClaim(sql, owner, p, now, leaseMs));
        return answers;
      });
      const waiting: typeof pending = [];
      pending.forEach((payload, i) => {
        const token = tokens[i];
        if (token) claims.push({ owner, sha256: payload.sha256, token });
        else waiting.push(payload);
      });
      pending = waiting;
      if (pending.length > 0) {
        if (Date.now() > deadline) throw new Error("Blob claims held by a collection for too long");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    return claims;
  }
}

function sizeOf(payload: OffloadedPayload): { sha256: string; size: number } {
  return { sha256: payload.sha256, size: payload.bytes.byteLength };
}

function isHash(value: string): boolean {
  return /^[0-9a-f]{64}$/.test(value);
}

function requireSql(sql: TxSql | undefined): TxSql {
  if (!sql) throw new Error("Blob claims need a SQL transaction");
  return sql;
}

/** Runs `work` over `items`, at most `limit` at a time. */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<unknown>,
) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
