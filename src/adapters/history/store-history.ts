import type { EntryDraft, SessionEntry } from "../../core/entry.js";
import { ConflictError, isSessionTreeError } from "../../core/errors.js";
import { KeyedQueue } from "../../core/keyed-queue.js";
import { stampDraft } from "../../core/stamp.js";
import { openStore } from "../../store/registry.js";
import type { CreateSessionInput, SessionStore, WriteResult } from "../../store/store.js";
import { EntriesCache } from "./entries-cache.js";
import type { History, HistoryHead, HistoryView } from "./history.js";
import { retryOnRace } from "./retry.js";
import { sessionKey } from "./session-lru.js";
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
  /** The writes through this handle, one at a time per session (`History.update`). */
  readonly writes = new KeyedQueue();

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
 * was planned on (a session not created yet: a new session's, see `plannedRevision`), so two
 * processes or server instances writing one conversation never fork it by accident: the later
 * write fails with a conflict and is planned again (see `retryOnRace`). A session deleted by
 * another writer after the plan is a conflict too: planned again, the write starts it afresh.
 */
export class StoreHistory implements History {
  /** This session made sure of in the store; forgotten whenever the store says it is not there. */
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
      this.created = undefined;
      return { leafId: null, path: [] };
    }
  }

  /** The leaf and revision; a session not created yet has no revision (see `plannedRevision`). */
  async head(): Promise<HistoryHead> {
    const store = await this.handle.get();
    try {
      const { leafId, revision } = await store.getSummary(this.owner, this.id);
      return { leafId, revision };
    } catch (error) {
      if (!isSessionTreeError(error, "session_not_found")) throw error;
      this.created = undefined;
      return { leafId: null };
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
      this.created = undefined;
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
    await this.appendStamped(entries, { expectedRevision: since && plannedRevision(since) });
    return entries;
  }

  async moveLeaf(id: string | null, since?: HistoryHead): Promise<void> {
    await this.setLeaf(id, since && plannedRevision(since));
  }

  update<T>(write: () => Promise<T>): Promise<T> {
    return this.handle.writes.run(sessionKey(this.owner, this.id), () => retryOnRace(write));
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
    const { revision, leafId } = await this.unlessDeleted(() =>
      store.appendEntries(this.owner, this.id, entries, options),
    );
    return { revision, leafId };
  }

  /** Moves the leaf (null: before the root), naming the revision the caller planned on. */
  async setLeaf(id: string | null, expectedRevision?: number): Promise<WriteResult> {
    const store = await this.store();
    return this.unlessDeleted(() => store.setLeaf(this.owner, this.id, id, { expectedRevision }));
  }

  /**
   * A write to the session `store()` made sure of. When it is not there any more, another writer
   * deleted it after this write was planned: the plan is stale, as after any other writer's write,
   * so the answer is a conflict, and the next attempt (reading it empty) creates it again.
   */
  private async unlessDeleted<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (!isSessionTreeError(error, "session_not_found")) throw error;
      this.created = undefined;
      throw new ConflictError(`Session ${this.id} was deleted after this write was planned`, undefined, {
        cause: error,
        details: { sessionId: this.id },
      });
    }
  }

  /** The store, with this session created in it on first use. */
  private store(): Promise<SessionStore> {
    if (this.created) return this.created;
    const made = this.handle.get().then(async (store) => {
      try {
        await store.getSummary(this.owner, this.id);
      } catch (error) {
        if (!isSessionTreeError(error, "session_not_found")) throw error;
        await this.create(store);
      }
      return store;
    });
    this.created = made;
    // A failed first use (a store that cannot open, a session in the trash) is tried again by the
    // next call.
    made.catch(() => {
      if (this.created === made) this.created = undefined;
    });
    return made;
  }

  private async create(store: SessionStore): Promise<void> {
    try {
      await store.createSession(this.owner, { ...this.init, id: this.id });
    } catch (error) {
      if (!isSessionTreeError(error, "conflict")) throw error;
      // The id is taken: another process or instance created it between our look and our create,
      // or it is in the trash (soft-deleted: not ours to start again). A second look tells, and
      // answers `session_not_found` for the trash.
      await store.getSummary(this.owner, this.id);
    }
  }
}

/** The first revision of every session (the store's contract): what a new session is planned on. */
export const NEW_SESSION_REVISION = 1;

/**
 * The revision a write planned on `head` names. A session not created yet has none: the write is
 * planned on the session its first write creates, so a writer that created and wrote it first
 * makes this write a conflict (planned again on what it wrote), never a second root beside it.
 */
export function plannedRevision(head: Pick<HistoryHead, "revision">): number {
  return head.revision ?? NEW_SESSION_REVISION;
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
