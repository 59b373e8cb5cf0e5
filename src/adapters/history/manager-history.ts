import type { EntryDraft, SessionEntry } from "../../core/entry.js";
import { ConflictError, NotFoundError, ValidationError } from "../../core/errors.js";
import { KeyedQueue } from "../../core/keyed-queue.js";
import type { SessionManagerLike, SessionTreeManager } from "../../session/session-manager-like.js";
import type { History, HistoryHead, HistoryView } from "./history.js";
import { retryOnRace } from "./retry.js";

/** sessiontree's manager also takes drafts as they are. */
type DraftTaking = SessionManagerLike & Pick<SessionTreeManager, "appendDraft">;

function takesDrafts(manager: SessionManagerLike): manager is DraftTaking {
  return typeof (manager as Partial<SessionTreeManager>).appendDraft === "function";
}

/**
 * A SessionManager as a History. Its writes are synchronous and its file (if any) is its own, so
 * there is no revision: a write planned on a view checks instead that the leaf is still the view's
 * (an append always moves it to a new entry, a rewind moves it too), and is a conflict, planned
 * again, when another call moved it in between (the caller awaited between its read and its write).
 */
export class ManagerHistory implements History {
  private readonly writes = new KeyedQueue();

  constructor(readonly manager: SessionManagerLike) {}

  async sessionId(): Promise<string> {
    return this.manager.getSessionId();
  }

  async view(): Promise<HistoryView> {
    const leafId = this.manager.getLeafId();
    return { leafId, path: leafId === null ? [] : (this.manager.getBranch() as SessionEntry[]) };
  }

  async head(): Promise<HistoryHead> {
    return { leafId: this.manager.getLeafId() };
  }

  async entries(): Promise<SessionEntry[]> {
    return this.manager.getEntries() as SessionEntry[];
  }

  async pathTo(id: string | null): Promise<SessionEntry[]> {
    if (id === null) return [];
    this.requireEntry(id);
    return this.manager.getBranch(id) as SessionEntry[];
  }

  async appendChain(
    parentId: string | null,
    drafts: EntryDraft[],
    since?: HistoryHead,
  ): Promise<SessionEntry[]> {
    if (drafts.length === 0) return [];
    this.requireLeaf(since);
    this.setLeaf(parentId);
    return drafts.map((draft) => this.append(draft));
  }

  async moveLeaf(id: string | null, since?: HistoryHead): Promise<void> {
    this.requireLeaf(since);
    this.setLeaf(id);
  }

  update<T>(write: () => Promise<T>): Promise<T> {
    return this.writes.run("", () => retryOnRace(write));
  }

  /** The write's plan still holds: the leaf is where the view it was planned on had it. */
  private requireLeaf(since: HistoryHead | undefined): void {
    const leafId = this.manager.getLeafId();
    if (since === undefined || since.leafId === leafId) return;
    throw new ConflictError("The session's leaf moved after this write was planned", undefined, {
      details: { plannedLeafId: since.leafId, leafId },
    });
  }

  private append(draft: EntryDraft): SessionEntry {
    const m = this.manager;
    if (takesDrafts(m)) return m.appendDraft(draft);
    let id: string;
    if (draft.type === "message") id = m.appendMessage(draft.message as never);
    else if (draft.type === "custom") id = m.appendCustomEntry(draft.customType, draft.data);
    else if (draft.type === "custom_message")
      id = m.appendCustomMessageEntry(draft.customType, draft.content, draft.display, draft.details);
    else throw new ValidationError("invalid_argument", `Cannot append a ${draft.type} entry here`);
    return m.getEntry(id) as SessionEntry;
  }

  private setLeaf(id: string | null): void {
    if (id === this.manager.getLeafId()) return;
    if (id === null) this.manager.resetLeaf();
    else {
      this.requireEntry(id);
      this.manager.branch(id);
    }
  }

  private requireEntry(id: string): void {
    if (this.manager.getEntry(id) === undefined) {
      throw new NotFoundError("entry_not_found", `Entry ${id} not found`, { details: { id } });
    }
  }
}
