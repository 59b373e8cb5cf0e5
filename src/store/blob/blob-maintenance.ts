import type { StoreDriver } from "../engine/driver.js";
import type { SessionRow } from "../sql/rows.js";
import type { SessionStore } from "../store.js";
import { type CollectOptions, type CollectReport, collectBlobs } from "./blob-gc.js";
import { type ArchiveReport, archiveSessions, restoreAllArchived } from "./session-archive.js";
import { type BlobOptions, SqlPayloads } from "./sql-payloads.js";

/** What an operator (or the service's timer) runs on a SQL store that keeps payloads in a blob store. */
export interface BlobMaintenance {
  /** Deletes blobs no session of their owner references any more (see blob-gc.ts). */
  collect(options?: CollectOptions): Promise<CollectReport>;
  /** Moves sessions last modified before `olderThan` to object storage (see session-archive.ts). */
  archive(olderThan: Date): Promise<ArchiveReport>;
  /** Brings every archived session back into the database; how many. */
  restoreAll(): Promise<number>;
}

/** The payload hooks of a SQL store given `blobs`; undefined keeps every payload in its entry. */
export function sqlPayloads(
  driver: StoreDriver<SessionRow>,
  blobs: BlobOptions | undefined,
): SqlPayloads | undefined {
  return blobs ? new SqlPayloads(driver, blobs.store, blobs) : undefined;
}

export function blobMaintenance(p: SqlPayloads | undefined, store: SessionStore): BlobMaintenance | null {
  if (!p) return null;
  return {
    collect: (options) => collectBlobs(p, options),
    archive: (olderThan) => archiveSessions(p, store, olderThan),
    restoreAll: () => restoreAllArchived(p),
  };
}
