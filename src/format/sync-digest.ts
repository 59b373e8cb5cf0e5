import { createHash } from "node:crypto";

/** What the service and a local copy agree on for one session: its id and how far it has come. */
export interface SyncMark {
  id: string;
  revision: number;
  entryCount: number;
}

/**
 * One short hash of a user's sessions on the service as (id, revision, entry count), sorted by id:
 * `sessiontree sync` keeps the marks it last saw, the service computes the same over what it holds,
 * and equal digests mean nothing changed there, so a sync with no changes sends this and nothing
 * per session. Shared by the server's sync route and the sync engine, so the two cannot drift.
 */
export function syncDigest(marks: readonly SyncMark[]): string {
  const sorted = [...marks].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const hash = createHash("sha256");
  for (const mark of sorted) hash.update(`${mark.id}\t${mark.revision}\t${mark.entryCount}\n`);
  return hash.digest("hex").slice(0, 32);
}
