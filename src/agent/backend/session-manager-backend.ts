import { type ProjectedContext, projectContext } from "../../core/context.js";
import type { EntryDraft, SessionEntry } from "../../core/entry.js";
import { isSessionTreeManager, type SessionManagerLike } from "../../session/session-manager-like.js";
import type { SessionBackend } from "./backend.js";
import { ContextCache } from "./context-cache.js";
import { appendThroughPiMethods } from "./pi-appenders.js";

/**
 * A SessionBackend over a (pi-compatible) SessionManager. Its writes are synchronous. sessiontree's
 * manager takes drafts as they are and gives its own projection (through the sidecar index for a
 * large resumed file); pi's is written through its `appendX` methods and projected here.
 */
export class SessionManagerBackend implements SessionBackend {
  private readonly contexts = new ContextCache();

  constructor(readonly manager: SessionManagerLike) {}

  leafId(): string | null {
    return this.manager.getLeafId();
  }

  async context(anchor?: string | null): Promise<ProjectedContext> {
    const at = anchor === undefined ? this.leafId() : anchor;
    return this.contexts.at(at, () => this.project(at));
  }

  async path(anchor?: string | null): Promise<SessionEntry[]> {
    if (anchor === null) return [];
    return this.manager.getBranch(anchor ?? undefined) as SessionEntry[];
  }

  getEntry(id: string): SessionEntry | undefined {
    return this.manager.getEntry(id) as SessionEntry | undefined;
  }

  hasChildren(id: string): boolean {
    return this.manager.getChildren(id).length > 0;
  }

  async appendUnder(parentId: string | null, draft: EntryDraft): Promise<SessionEntry> {
    const userLeaf = this.manager.getLeafId();
    if (userLeaf !== parentId) this.setLeaf(parentId);
    let entry: SessionEntry;
    try {
      entry = this.write(draft);
    } finally {
      if (userLeaf !== parentId) this.setLeaf(userLeaf);
    }
    this.contexts.appended(entry);
    return entry;
  }

  async moveLeaf(id: string | null): Promise<void> {
    this.setLeaf(id);
  }

  async branchWithSummary(fromId: string | null, summary: string, details?: unknown): Promise<string> {
    return this.manager.branchWithSummary(fromId, summary, details, false);
  }

  private project(anchor: string | null): ProjectedContext {
    const m = this.manager;
    if (!isSessionTreeManager(m))
      return projectContext(anchor === null ? [] : (m.getBranch(anchor) as SessionEntry[]));
    // At the leaf, the manager's own projection: a file resumed through its index is not read whole.
    return anchor === m.getLeafId() ? m.buildSessionContext() : m.buildSessionContextAt(anchor);
  }

  private write(draft: EntryDraft): SessionEntry {
    const m = this.manager;
    return isSessionTreeManager(m) ? m.appendDraft(draft) : appendThroughPiMethods(m, draft);
  }

  private setLeaf(id: string | null): void {
    if (id === null) this.manager.resetLeaf();
    else this.manager.branch(id);
  }
}
