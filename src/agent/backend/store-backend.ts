import { type ProjectedContext, projectContext } from "../../core/context.js";
import type { EntryDraft, SessionEntry } from "../../core/entry.js";
import { stampDraft } from "../../core/stamp.js";
import { SessionTree } from "../../core/tree.js";
import type { SessionStore } from "../../store/store.js";
import type { SessionBackend } from "./backend.js";
import { ContextCache } from "./context-cache.js";

/**
 * A SessionBackend over a SessionStore session. Keeps an in-memory index of the session (loaded
 * once), and writes each entry with an explicit parent through `appendEntries`, so retries are
 * idempotent and another writer's revision bump surfaces as a ConflictError. The index is
 * therefore the session as the store holds it, and contexts are projected from its branches
 * (the same entries `readBranch` gives, without asking the store again).
 */
export class StoreBackend implements SessionBackend {
  private readonly tree = new SessionTree();
  private readonly contexts = new ContextCache();
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

  async context(anchor?: string | null): Promise<ProjectedContext> {
    const at = anchor === undefined ? this.leafId() : anchor;
    return this.contexts.at(at, () => projectContext(this.tree.getBranchSlots(at)));
  }

  async path(anchor?: string | null): Promise<SessionEntry[]> {
    return this.tree.getBranch(anchor);
  }

  getEntry(id: string): SessionEntry | undefined {
    return this.tree.getEntry(id);
  }

  hasChildren(id: string): boolean {
    return this.tree.getChildren(id).length > 0;
  }

  async appendUnder(parentId: string | null, draft: EntryDraft): Promise<SessionEntry> {
    const entry = stampDraft(draft, parentId, { isTaken: (id) => this.tree.hasId(id) });
    const userLeaf = this.tree.getLeafId();
    const moveLeaf = userLeaf === parentId;
    const result = await this.store.appendEntries(this.owner, this.sessionId, [entry], {
      moveLeaf,
      expectedRevision: this.revision,
    });
    this.revision = result.revision;
    this.tree.load(entry);
    if (!moveLeaf) this.setTreeLeaf(userLeaf);
    this.contexts.appended(entry);
    return entry;
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
    const draft = {
      type: "branch_summary",
      fromId: fromId ?? "root",
      summary,
      details,
      fromHook: false,
    } as const;
    return (await this.appendUnder(fromId, draft)).id;
  }

  private setTreeLeaf(id: string | null): void {
    if (id === null) this.tree.resetLeaf();
    else this.tree.branch(id);
  }
}
