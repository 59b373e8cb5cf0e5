import type { SessionEntry } from "../../core/entry.js";
import type { TxSql } from "../store.js";
import type { WriteTx } from "./driver.js";
import type { StoreFlow } from "./step.js";

/**
 * What the engine asks of a store that keeps large payloads out of line (store/blob/sql-payloads.ts):
 * a write step that offloads before the driver stores (`prepare` outside the transaction, `confirm*`
 * inside it) and a read step that puts payloads back (`resolve`). Stores without it (memory, jsonl)
 * keep every payload in the entry.
 */
export interface PayloadHooks<S> {
  /** The batch as it will be stored (payloads replaced by references), their blobs claimed and uploaded. */
  prepare(owner: string, batch: readonly SessionEntry[]): Promise<PreparedBatch>;
  /** Inside an append's transaction, before its entries are inserted. */
  confirmInWrite(tx: WriteTx<S>, ref: S, prepared: PreparedBatch): StoreFlow<void>;
  /** Inside `insertSession`'s transaction (create, import), after the session row exists. */
  confirmInInsert(sql: TxSql, owner: string, sessionId: string, prepared: PreparedBatch): StoreFlow<void>;
  /** Entries with their references replaced by the payloads (fetched and verified). */
  resolve(owner: string, entries: SessionEntry[]): Promise<SessionEntry[]>;
  /** Brings an archived session's entries back from object storage. */
  restore(owner: string, sessionId: string): Promise<void>;
  /** Whether an error means "prepare again" (a collection took a claim between prepare and commit). */
  isClaimLost(error: unknown): boolean;
  /**
   * After a purge has committed: the purged owners' payloads nothing references any more go. Never
   * throws: what a failure leaves (unreferenced blobs) the next collection removes.
   */
  afterPurge(owners: readonly string[]): Promise<void>;
}

/** A batch ready to store: entries as stored, and the claims its transaction must confirm. */
export interface PreparedBatch {
  entries: SessionEntry[];
  claims: ReadonlyArray<{ owner: string; sha256: string; token: string }>;
}

/**
 * Thrown inside a flow that needs a session's entries when they are archived: the engine restores
 * them (outside the transaction: it reads object storage) and runs the call again.
 */
export class SessionArchivedSignal extends Error {
  constructor(
    readonly owner: string,
    readonly sessionId: string,
  ) {
    super(`Session ${sessionId} is archived`);
  }
}

/** A prepared write retried while collections take its claims (each retry claims afresh). */
export async function withPrepared<T>(
  hooks: Pick<PayloadHooks<unknown>, "prepare" | "isClaimLost">,
  owner: string,
  batch: readonly SessionEntry[],
  write: (prepared: PreparedBatch) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const prepared = await hooks.prepare(owner, batch);
    try {
      return await write(prepared);
    } catch (error) {
      if (!hooks.isClaimLost(error) || attempt >= 5) throw error;
    }
  }
}
