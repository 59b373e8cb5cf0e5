import { isLeafMarker, type SessionEntry } from "../core/entry.js";
import type { SessionTree } from "../core/tree.js";

/** What of a local file goes to the service. */
export interface PushPlan {
  /** Entries to send, parents before children (a leaf marker right before its first child). */
  entries: SessionEntry[];
  /** The file's entries up to here are now accounted for (the next sync starts after them). */
  upTo: number;
}

/**
 * The entries of the file from position `from` on (file order) that the service may lack:
 * everything but leaf markers nobody built on (our bookkeeping: the leaf is per copy) and the
 * entries just read from the service (`remoteIds`). Entries before `from` were accounted for by an
 * earlier sync. Sending an entry the service has is harmless (an identical entry is skipped by id),
 * so a state that is lost or stale only costs bytes.
 *
 * A leaf marker pi appended under (pi's leaf was the last line, our marker) is an ordinary entry
 * of this copy's history, and goes with its first child that goes, right before it: also when the
 * marker is before `from` (it was trailing, so bookkeeping, when the last sync passed it). The
 * service takes a marker only with an entry of the same batch under it (`batches` keeps them
 * together), so a marker with no child never reaches it.
 */
export function planPush(tree: SessionTree, from: number, remoteIds: ReadonlySet<string>): PushPlan {
  const stored = tree.getStoredEntries();
  const start = from <= stored.length ? from : 0;
  const plan: PushPlan = { entries: [], upTo: stored.length };
  const placed = new Set<string>();
  for (let i = start; i < stored.length; i++) {
    const entry = stored[i] as SessionEntry;
    if (isLeafMarker(entry) || remoteIds.has(entry.id)) continue;
    plan.entries.push(...markersAbove(tree, entry, remoteIds, placed), entry);
  }
  return plan;
}

/** The leaf markers `entry` hangs under (directly, or through other markers), top first, not yet placed. */
function markersAbove(
  tree: SessionTree,
  entry: SessionEntry,
  remoteIds: ReadonlySet<string>,
  placed: Set<string>,
): SessionEntry[] {
  const markers: SessionEntry[] = [];
  for (let id = entry.parentId; id !== null && !placed.has(id) && !remoteIds.has(id); ) {
    const parent = tree.getEntry(id);
    if (!parent || !isLeafMarker(parent)) break;
    placed.add(id);
    markers.unshift(parent);
    id = parent.parentId;
  }
  return markers;
}

/**
 * Batches within the service's limits: at most `maxEntries` entries and about `maxBytes` of JSON.
 * A leaf marker is never the last entry of a batch when an entry follows: it goes on with the next
 * one (its child, as `planPush` orders them), since the service takes a marker only with a child.
 */
export function batches(
  entries: readonly SessionEntry[],
  maxEntries = 500,
  maxBytes = 4 << 20,
): SessionEntry[][] {
  const out: SessionEntry[][] = [];
  let batch: SessionEntry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = Buffer.byteLength(JSON.stringify(entry));
    if (batch.length > 0 && (batch.length >= maxEntries || bytes + size > maxBytes)) {
      const carried = isLeafMarker(batch[batch.length - 1] as SessionEntry) ? batch.pop() : undefined;
      if (batch.length > 0) out.push(batch);
      batch = carried ? [carried] : [];
      bytes = carried ? Buffer.byteLength(JSON.stringify(carried)) : 0;
    }
    batch.push(entry);
    bytes += size;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}
