import type { SessionEntry } from "../../core/entry.js";
import type { EntryPage } from "../../store/store.js";
import { deepFreeze, SessionLru } from "./session-lru.js";
import { extended } from "./view-cache.js";

/** A store read of the session's entries in storage order after the first `after`. */
export type ReadPage = (after: number) => Promise<EntryPage>;

/**
 * Every entry of each of the few sessions a handle served last, in storage order, so the next
 * read of one asks the store only for the entries stored since (sessions are append-only, so
 * positions hold): an adapter that looks a message up in the whole tree each turn (the AI SDK's
 * save) pays O(new entries) for the read. The read starts at the last kept entry, to check that
 * the positions still hold; when that entry is not there any more (the session purged and
 * created again), the whole session is read. Kept arrays are never changed and their entries are
 * frozen; each read gets its own copy of the array.
 */
export class EntriesCache {
  private readonly kept: SessionLru<readonly SessionEntry[]>;

  constructor(capacity = 32) {
    this.kept = new SessionLru(capacity);
  }

  async entries(owner: string, sessionId: string, readPage: ReadPage): Promise<SessionEntry[]> {
    const base = this.kept.get(owner, sessionId) ?? [];
    const last = base.at(-1);
    let read = await readFrom(readPage, Math.max(0, base.length - 1));
    let all: readonly SessionEntry[];
    if (last === undefined) all = read;
    else if (read[0]?.id === last.id && read[0].timestamp === last.timestamp) {
      all = extended(base, read.slice(1));
    } else {
      read = await readFrom(readPage, 0);
      all = read;
    }
    for (const entry of read) deepFreeze(entry);
    this.kept.set(owner, sessionId, all);
    return all.slice();
  }

  forget(owner: string, sessionId: string): void {
    this.kept.delete(owner, sessionId);
  }
}

/** Every entry after the first `after`, a page at a time. */
async function readFrom(readPage: ReadPage, after: number): Promise<SessionEntry[]> {
  const entries: SessionEntry[] = [];
  for (let at: number | null = after; at !== null; ) {
    const page = await readPage(at);
    entries.push(...page.entries);
    at = page.nextAfter;
  }
  return entries;
}
