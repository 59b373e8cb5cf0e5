import type { AgentInputItem, Session } from "@openai/agents";
import type { SessionEntry } from "../../core/entry.js";
import type { History } from "../history/history.js";
import { type HistorySource, openHistory } from "../history/open-history.js";
import { type ModelLabel, UNKNOWN_MODEL } from "../history/pi-messages.js";
import { StoreHandle } from "../history/store-history.js";
import { TreeShape } from "../history/tree-shape.js";
import { type ItemEntry, itemsOf } from "./entry-item.js";
import { itemsToDrafts } from "./item-draft.js";

export interface SessionTreeSessionOptions extends HistorySource {
  /** The store session holding the conversation (default: a new UUID v7). Not used with `manager`. */
  sessionId?: string;
  /** The provider and model assistant items are labelled with (pi shows them, and resumes with them). */
  model?: ModelLabel;
}

/** The provider and model an assistant entry was labelled with, else `fallback`. */
function labelOf(entry: SessionEntry, fallback: ModelLabel): ModelLabel {
  if (entry.type !== "message") return fallback;
  const { provider, model, api } = entry.message as { provider?: unknown; model?: unknown; api?: unknown };
  if (typeof provider !== "string" || typeof model !== "string") return fallback;
  return typeof api === "string" ? { provider, model, api } : { provider, model };
}

/** A branch of the conversation: a tip of the tree, or the current leaf after a rewind. */
export interface BranchInfo {
  /** Pass to `checkout` to continue this branch. */
  leafId: string;
  current: boolean;
  itemCount: number;
  lastItem: AgentInputItem | undefined;
  /** When its last entry was written (ISO 8601). */
  updatedAt: string;
}

/**
 * The OpenAI Agents SDK `Session` over sessiontree: pass it as `run(agent, input, { session })`.
 * Every item is an entry of a tree, so nothing is ever deleted: `popItem` moves the leaf back one
 * item (the item stays, on the branch left behind) and `clearSession` moves it before the first
 * entry; the next `addItems` starts a branch there. `listBranches` and `checkout` reach the others.
 */
export class SessionTreeSession implements Session {
  private readonly history: History;
  private readonly handle: StoreHandle | undefined;
  private readonly model: ModelLabel;

  constructor(options: SessionTreeSessionOptions) {
    this.handle = options.store === undefined ? undefined : new StoreHandle(options.store);
    this.history = openHistory(options, this.handle, options.sessionId);
    this.model = options.model ?? UNKNOWN_MODEL;
  }

  getSessionId(): Promise<string> {
    return this.history.sessionId();
  }

  /** The items on the leaf's path, oldest first; with `limit`, only the last `limit` of them. */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    return (await this.getItemEntries(limit)).map((found) => found.item);
  }

  /** Like `getItems`, with the entry of each item (a rewind target for `checkout`). */
  async getItemEntries(limit?: number): Promise<ItemEntry[]> {
    if (limit !== undefined && limit <= 0) return [];
    const found = itemsOf((await this.history.view()).path);
    const chosen = limit === undefined ? found : found.slice(-limit);
    // Copies, as MemorySession hands out: a caller changing an item changes nothing stored.
    return chosen.map(({ entryId, item }) => ({ entryId, item: structuredClone(item) }));
  }

  /** Appends the items under the leaf, in one write, and moves the leaf to the last one. */
  async addItems(items: AgentInputItem[]): Promise<void> {
    if (items.length === 0) return;
    const drafts = itemsToDrafts(items, this.model);
    await this.history.update(async () => {
      // The leaf and revision only: the path is not needed to append under the leaf.
      const head = await this.history.head();
      await this.history.appendChain(head.leafId, drafts, head);
    });
  }

  /**
   * Moves the leaf to the parent of the last item and returns that item (it stays in the tree).
   * When it shares its entry with other function calls (parallel calls are one entry), those are
   * written again there as an entry of their own, which the leaf moves to.
   */
  async popItem(): Promise<AgentInputItem | undefined> {
    return this.history.update(async () => {
      const view = await this.history.view();
      const found = itemsOf(view.path);
      const last = found.at(-1);
      if (last === undefined) return undefined;
      const entry = view.path.find((e) => e.id === last.entryId) as SessionEntry;
      const kept = found.filter((other) => other.entryId === entry.id && other !== last).map((o) => o.item);
      if (kept.length === 0) await this.history.moveLeaf(entry.parentId, view);
      else
        await this.history.appendChain(entry.parentId, itemsToDrafts(kept, labelOf(entry, this.model)), view);
      return structuredClone(last.item);
    });
  }

  /** Moves the leaf before the first entry: the conversation starts afresh, and nothing is deleted. */
  async clearSession(): Promise<void> {
    await this.history.update(async () => {
      const head = await this.history.head();
      if (head.leafId !== null) await this.history.moveLeaf(null, head);
    });
  }

  /** Every branch: the tips of the tree, and the current leaf when a rewind left it inside one. */
  async listBranches(): Promise<BranchInfo[]> {
    const [entries, view] = await Promise.all([this.history.entries(), this.history.view()]);
    const shape = new TreeShape(entries);
    const ends = shape.tips();
    const leaf = view.leafId === null ? undefined : shape.get(view.leafId);
    if (leaf && !ends.includes(leaf)) ends.push(leaf);
    return ends.map((end) => {
      const items = itemsOf(shape.pathTo(end.id));
      return {
        leafId: end.id,
        current: end.id === view.leafId,
        itemCount: items.length,
        lastItem: items.at(-1)?.item,
        updatedAt: end.timestamp,
      };
    });
  }

  /** Moves the leaf to `entryId` (a branch from `listBranches`, or an item's entry); null: before the root. */
  async checkout(entryId: string | null): Promise<void> {
    await this.history.update(async () => this.history.moveLeaf(entryId, await this.history.head()));
  }

  /** Closes the store when this session opened it from a location. */
  async close(): Promise<void> {
    await this.handle?.close();
  }
}
