import type { EntryDraft, SessionEntry } from "../../core/entry.js";
import { newEntryId, nowIso } from "../../core/ids.js";
import { SessionTree } from "../../core/tree.js";
import type { SessionStore } from "../../store/store.js";
import type { SessionBackend } from "./backend.js";

/**
 * A SessionBackend over a SessionStore session. Keeps an in-memory index of the session (loaded
 * once), and writes each entry with an explicit parent through `appendEntries`, so retries are
 * idempotent and another writer's revision bump surfaces as a ConflictError.
 */
export class StoreBackend implements SessionBackend {
  private readonly tree = new SessionTree();
  private revision = 0;

  private constructor(
    readonly store: SessionStore,
    readonly owner: string,
    readonly sessionId: string,
  ) {}

  static async open(store: SessionStore, owner: string, sessionId: string): Promise<StoreBackend> {
    const backend = new StoreBackend(store, owner, sessionId);
    const stored = await store.loadSession(owner, sessionId);
    for (const entry of stored.entries) backend.tree.load(entry);
    backend.setTreeLeaf(stored.summary.leafId);
    backend.revision = stored.summary.revision;
    return backend;
  }

  leafId(): string | null {
    return this.tree.getLeafId();
  }

  async path(leafId?: string | null): Promise<SessionEntry[]> {
    return this.tree.getBranch(leafId);
  }

  getEntry(id: string): SessionEntry | undefined {
    return this.tree.getEntry(id);
  }

  hasChildren(id: string): boolean {
    return this.tree.getChildren(id).length > 0;
  }

  async appendUnder(parentId: string | null, draft: EntryDraft): Promise<string> {
    // Key order as pi writes it: type, id, parentId, timestamp, then the payload.
    const base = {
      type: draft.type,
      id: newEntryId((id) => this.tree.hasId(id)),
      parentId,
      timestamp: nowIso(),
    };
    const entry = Object.assign(base, draft) as SessionEntry;
    const userLeaf = this.tree.getLeafId();
    const moveLeaf = userLeaf === parentId;
    const result = await this.store.appendEntries(this.owner, this.sessionId, [entry], {
      moveLeaf,
      expectedRevision: this.revision,
    });
    this.revision = result.revision;
    this.tree.load(entry);
    if (!moveLeaf) this.setTreeLeaf(userLeaf);
    return entry.id;
  }

  async moveLeaf(id: string | null): Promise<void> {
    const result = await this.store.setLeaf(this.owner, this.sessionId, id, {
      expectedRevision: this.revision,
    });
    this.revision = result.revision;
    this.setTreeLeaf(id);
  }

  async branchWithSummary(fromId: string | null, summary: string, details?: unknown): Promise<string> {
    await this.moveLeaf(fromId);
    return this.appendUnder(fromId, {
      type: "branch_summary",
      fromId: fromId ?? "root",
      summary,
      details,
      fromHook: false,
    });
  }

  private setTreeLeaf(id: string | null): void {
    if (id === null) this.tree.resetLeaf();
    else this.tree.branch(id);
  }
}
