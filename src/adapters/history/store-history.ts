import type { EntryDraft, SessionEntry } from "../../core/entry.js";
import { isSessionTreeError } from "../../core/errors.js";
import { stampDraft } from "../../core/stamp.js";
import { openStore } from "../../store/registry.js";
import type { CreateSessionInput, SessionStore, WriteResult } from "../../store/store.js";
import { EntriesCache } from "./entries-cache.js";
import type { History, HistoryHead, HistoryView } from "./history.js";
import { ViewCache } from "./view-cache.js";

/** Entries per read of a session's entries: the store's largest page. */
const ENTRY_PAGE = 5000;

/** A store, or a location `openStore` knows ("sqlite:chats.db", "jsonl:sessions", "memory:"). */
export type StoreOrLocation = SessionStore | string;

/**
 * The store behind a location, opened and initialised once on first use. A store given as an
 * object is used as it is (the caller initialised it and closes it).
 */
export class StoreHandle {
  private opened: Promise<SessionStore> | undefined;
  readonly ownsStore: boolean;
  /** The last view of the sessions read through this handle, extended by what each turn adds. */
  readonly views = new ViewCache();
  /** Their entries in storage order, extended by what was stored since. */
  readonly entries = new EntriesCache();

  constructor(private readonly source: StoreOrLocation) {
    this.ownsStore = typeof source === "string";
  }

  get(): Promise<SessionStore> {
    if (typeof this.source !== "string") return Promise.resolve(this.source);
    this.opened ??= openStore(this.source).then(async (store) => {
      await store.init();
      return store;
    });
    return this.opened;
  }

  /** Closes the store when this handle opened it. */
  async close(): Promise<void> {
    if (this.ownsStore && this.opened) await (await this.opened).close();
  }
}

/**
 * One session of a SessionStore. Every view asks the store, and reads only the part of the leaf's
 * path its handle has not seen (`readBranchSince` from the last view's leaf; the whole path when
 * the leaf left it), so a turn costs O(new entries). Every write names the revision of the view it
 * was planned on, so two processes or server instances writing one conversation never fork it by
 * accident: the later write fails with a conflict and is planned again (see `retryOnRace`).
 */
export class StoreHistory implements History {
  private created: Promise<SessionStore> | undefined;

  constructor(
    private readonly handle: StoreHandle,
    readonly owner: string,
    private readonly id: string,
    private readonly init: Omit<CreateSessionInput, "id"> = {},
  ) {}

  async sessionId(): Promise<string> {
    await this.store();
    return this.id;
  }

  /** A session not created yet reads as empty: reads never create it, the first write does. */
  async view(): Promise<HistoryView> {
    const store = await this.handle.get();
    const views = this.handle.views;
    try {
      return await views.view(this.owner, this.id, (known) =>
        store.readBranchSince(this.owner, this.id, known),
      );
    } catch (error) {
      if (!isSessionTreeError(error, "session_not_found")) throw error;
      views.forget(this.owner, this.id);
      return { leafId: null, path: [] };
    }
  }

  async head(): Promise<HistoryHead> {
    const store = await this.handle.get();
    try {
      const { leafId, revision } = await store.getSummary(this.owner, this.id);
      return { leafId, revision };
    } catch (error) {
      if (isSessionTreeError(error, "session_not_found")) return { leafId: null };
      throw error;
    }
  }

  async entries(): Promise<SessionEntry[]> {
    const store = await this.handle.get();
    const kept = this.handle.entries;
    try {
      return await kept.entries(this.owner, this.id, (after) =>
        store.readEntries(this.owner, this.id, { after, limit: ENTRY_PAGE }),
      );
    } catch (error) {
      if (!isSessionTreeError(error, "session_not_found")) throw error;
      kept.forget(this.owner, this.id);
      return [];
    }
  }

  async pathTo(id: string | null): Promise<SessionEntry[]> {
    const store = await this.handle.get();
    return store.readBranch(this.owner, this.id, id);
  }

  async appendChain(
    parentId: string | null,
    drafts: EntryDraft[],
    since?: HistoryHead | HistoryView,
  ): Promise<SessionEntry[]> {
    if (drafts.length === 0) return [];
    await this.store(); // created before the entries are stamped: the header is not newer than they
    // Ids are drawn against the path read, if any; one taken elsewhere in the tree is refused by
    // the store as `duplicate_entry` and the write is planned again with fresh ids.
    const path = since !== undefined && "path" in since ? since.path : [];
    const entries = stampChain(parentId, drafts, new Set(path.map((entry) => entry.id)));
    await this.appendStamped(entries, { expectedRevision: since?.revision });
    return entries;
  }

  async moveLeaf(id: string | null, since?: HistoryHead): Promise<void> {
    await this.setLeaf(id, since?.revision);
  }

  /**
   * Appends entries stamped already (`stampChain`), in one write, for an adapter that plans several
   * chains into one batch. The leaf moves to the last one unless `moveLeaf` is false. Answers the
   * revision and leaf the write left.
   */
  async appendStamped(
    entries: SessionEntry[],
    options: { expectedRevision?: number; moveLeaf?: boolean } = {},
  ): Promise<WriteResult> {
    const store = await this.store();
    const { revision, leafId } = await store.appendEntries(this.owner, this.id, entries, options);
    return { revision, leafId };
  }

  /** Moves the leaf (null: before the root), naming the revision the caller planned on. */
  async setLeaf(id: string | null, expectedRevision?: number): Promise<WriteResult> {
    const store = await this.store();
    return store.setLeaf(this.owner, this.id, id, { expectedRevision });
  }

  /** The store, with this session created in it on first use. */
  private store(): Promise<SessionStore> {
    this.created ??= this.handle.get().then(async (store) => {
      try {
        await store.getSummary(this.owner, this.id);
      } catch (error) {
        if (!isSessionTreeError(error, "session_not_found")) throw error;
        await this.create(store);
      }
      return store;
    });
    // A failed first use (a store that cannot open) is tried again by the next call.
    this.created.catch(() => {
      this.created = undefined;
    });
    return this.created;
  }

  private async create(store: SessionStore): Promise<void> {
    try {
      await store.createSession(this.owner, { ...this.init, id: this.id });
    } catch (error) {
      // Another process or instance created it between our look and our create: it exists now.
      if (!isSessionTreeError(error, "conflict")) throw error;
    }
  }
}

/**
 * Drafts stamped as a chain under `parentId`: each entry's parent is the one before it. New ids
 * avoid `taken`, which gets them added (one set can serve several chains of one write).
 */
export function stampChain(
  parentId: string | null,
  drafts: EntryDraft[],
  taken: Set<string>,
): SessionEntry[] {
  const entries: SessionEntry[] = [];
  let parent = parentId;
  for (const draft of drafts) {
    const entry = stampDraft(draft, parent, { isTaken: (id) => taken.has(id) });
    taken.add(entry.id);
    entries.push(entry);
    parent = entry.id;
  }
  return entries;
}
