import type { SessionEntry } from "../../core/entry.js";

/**
 * The tree's shape from a flat list of entries (storage order): children by parent, tips, and
 * paths, for the adapters' branch listings. Built once per call; nothing here is kept.
 */
export class TreeShape {
  private readonly byId = new Map<string, SessionEntry>();
  private readonly children = new Map<string | null, SessionEntry[]>();
  /** Position in storage order: later means written later. */
  private readonly order = new Map<string, number>();

  constructor(entries: readonly SessionEntry[]) {
    entries.forEach((entry, index) => {
      this.byId.set(entry.id, entry);
      this.order.set(entry.id, index);
    });
    for (const entry of entries) {
      // An entry whose parent is missing counts as a root, as pi shows it.
      const parent = entry.parentId !== null && this.byId.has(entry.parentId) ? entry.parentId : null;
      const list = this.children.get(parent);
      if (list) list.push(entry);
      else this.children.set(parent, [entry]);
    }
  }

  get(id: string): SessionEntry | undefined {
    return this.byId.get(id);
  }

  childrenOf(id: string | null): SessionEntry[] {
    return this.children.get(id) ?? [];
  }

  /** Entries nothing hangs under, in storage order. */
  tips(): SessionEntry[] {
    return [...this.byId.values()].filter((entry) => this.childrenOf(entry.id).length === 0);
  }

  /** The path root → `id`, oldest first (empty for null or an unknown id). */
  pathTo(id: string | null): SessionEntry[] {
    const path: SessionEntry[] = [];
    const seen = new Set<string>();
    let at = id === null ? undefined : this.byId.get(id);
    while (at && !seen.has(at.id)) {
      seen.add(at.id);
      path.push(at);
      at = at.parentId === null ? undefined : this.byId.get(at.parentId);
    }
    return path.reverse();
  }

  /** The tip under `id` (or `id` itself) written last: where a branch was last left. */
  latestTipUnder(id: string): SessionEntry | undefined {
    let best: SessionEntry | undefined;
    const stack = [id];
    const seen = new Set<string>();
    while (stack.length > 0) {
      const at = this.byId.get(stack.pop() as string);
      if (!at || seen.has(at.id)) continue;
      seen.add(at.id);
      const under = this.childrenOf(at.id);
      if (under.length === 0 && (!best || this.position(at) > this.position(best))) best = at;
      for (const child of under) stack.push(child.id);
    }
    return best;
  }

  position(entry: SessionEntry): number {
    return this.order.get(entry.id) ?? -1;
  }
}
