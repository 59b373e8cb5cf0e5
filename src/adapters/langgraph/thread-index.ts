import type { SessionEntry } from "../../core/entry.js";
import type { HistoryHead } from "../history/history.js";
import type { CheckpointRecord, MessageRecord, WritesRecord } from "./records.js";
import { recordOf, storedMessage } from "./records.js";
import type { StoredValue } from "./stored-value.js";

/** A checkpoint of the thread, as the index knows it. */
export interface CheckpointNode {
  entryId: string;
  record: CheckpointRecord;
  /** Where the next entry of its segment hangs: its last writes entry, or the checkpoint itself. */
  tailId: string;
  /** The message entries written with it, oldest first. */
  written: string[];
  /** Its pending writes by "task,index" (the key LangGraph's savers deduplicate on). */
  writes: Map<string, PendingWriteSlot>;
}

export interface PendingWriteSlot {
  task: string;
  path: string;
  index: number;
  channel: string;
  value: StoredValue;
}

export interface MessageSlot {
  entryId: string;
  parentId: string | null;
  messageId: string | undefined;
  stored: StoredValue;
  /** The message read back, kept once read (the graph gets the same instance each time). */
  value?: unknown;
}

/**
 * What the saver knows of one thread (one session): its checkpoints, their pending writes and the
 * message entries, built from the session's entries in storage order and kept up to date with the
 * saver's own writes. `revision` and `leafId` are the store's session it reflects: when the
 * store's differ (another process wrote, or deleted the thread and wrote it again), the index is
 * read again.
 */
export class ThreadIndex {
  private readonly nodes = new Map<string, CheckpointNode>();
  private readonly latestByNs = new Map<string, CheckpointNode>();
  private readonly messages = new Map<string, MessageSlot>();
  /** Message lists rebuilt lately, by checkpoint and channel: the next one starts from them. */
  private readonly lists = new Map<string, MessageSlot[]>();

  constructor(
    /**
     * The store's revision this index reflects, entries planned since aside (they are stored with
     * a write naming it); undefined: the session does not exist (a thread never written).
     */
    public revision: number | undefined,
    /**
     * The session's leaf (an entry id drawn at random when written): with the revision, what tells
     * this session from one deleted and written again to the same revision.
     */
    public leafId: string | null,
  ) {}

  static fromEntries(entries: readonly SessionEntry[], revision: number, leafId: string | null): ThreadIndex {
    const index = new ThreadIndex(revision, leafId);
    for (const entry of entries) index.apply(entry);
    return index;
  }

  /** Whether the store's session, as `head` read it, is still the one this index reflects. */
  reflects(head: HistoryHead): boolean {
    return head.revision === this.revision && head.leafId === this.leafId;
  }

  /** Takes in one entry, in storage order. Entries the saver did not write are ignored. */
  apply(entry: SessionEntry): void {
    const record = recordOf(entry);
    if (record?.kind === "message") this.applyMessage(entry, record);
    else if (record?.kind === "checkpoint") this.applyCheckpoint(entry, record);
    else if (record?.kind === "writes") this.applyWrites(entry, record);
  }

  /**
   * The saver's own entries, planned (not stored yet: a failed write drops the index): the leaf
   * moves to the last one, unless `keepLeaf` (writes against an older checkpoint leave it).
   */
  applyPlanned(entries: readonly SessionEntry[], keepLeaf: boolean): void {
    for (const entry of entries) this.apply(entry);
    if (!keepLeaf) this.leafId = entries.at(-1)?.id ?? this.leafId;
  }

  node(ns: string, checkpointId: string): CheckpointNode | undefined {
    return this.nodes.get(nodeKey(ns, checkpointId));
  }

  /** The namespace's checkpoint with the highest id (ids are time-ordered UUID v6). */
  latest(ns: string): CheckpointNode | undefined {
    return this.latestByNs.get(ns);
  }

  parentOf(node: CheckpointNode): CheckpointNode | undefined {
    return node.record.parent === null ? undefined : this.node(node.record.ns, node.record.parent);
  }

  checkpoints(): IterableIterator<CheckpointNode> {
    return this.nodes.values();
  }

  /** A message list rebuilt lately at this checkpoint (a few are kept; treat as read-only). */
  knownList(node: CheckpointNode, channel: string): readonly MessageSlot[] | undefined {
    return this.lists.get(`${node.entryId}\u0000${channel}`);
  }

  keepList(node: CheckpointNode, channel: string, slots: MessageSlot[]): void {
    const key = `${node.entryId}\u0000${channel}`;
    this.lists.delete(key);
    this.lists.set(key, slots);
    for (const old of this.lists.keys()) {
      if (this.lists.size <= KEPT_LISTS) break;
      this.lists.delete(old);
    }
  }

  message(entryId: string): MessageSlot | undefined {
    return this.messages.get(entryId);
  }

  private applyMessage(entry: SessionEntry, record: MessageRecord): void {
    const stored = storedMessage(entry, record);
    if (stored === undefined) return; // damaged: a checkpoint needing it says so when read
    this.messages.set(entry.id, {
      entryId: entry.id,
      parentId: entry.parentId,
      messageId: record.id,
      stored,
    });
  }

  private applyCheckpoint(entry: SessionEntry, record: CheckpointRecord): void {
    const key = nodeKey(record.ns, record.id);
    // The same checkpoint put again (LangGraph's savers upsert): the later one stands, with the
    // writes already made against it.
    const node: CheckpointNode = {
      entryId: entry.id,
      record,
      tailId: entry.id,
      written: this.writtenBefore(entry, record.written),
      writes: this.nodes.get(key)?.writes ?? new Map(),
    };
    this.nodes.set(key, node);
    const latest = this.latestByNs.get(record.ns);
    if (!latest || latest.record.id <= record.id) this.latestByNs.set(record.ns, node);
  }

  /** The `count` message entries just above a checkpoint's entry: the ones written with it. */
  private writtenBefore(entry: SessionEntry, count: number): string[] {
    const ids: string[] = [];
    let at = entry.parentId;
    while (ids.length < count && at !== null) {
      const slot = this.messages.get(at);
      if (!slot) break;
      ids.push(slot.entryId);
      at = slot.parentId;
    }
    return ids.reverse();
  }

  private applyWrites(entry: SessionEntry, record: WritesRecord): void {
    const node = this.node(record.ns, record.checkpoint);
    if (!node) return;
    node.tailId = entry.id;
    for (const [channel, index, value] of record.writes) {
      const key = `${record.task},${index}`;
      // As LangGraph's savers do: a task's write at an index is kept once, special channels
      // (negative indexes: errors, interrupts) are replaced by a later one.
      if (index >= 0 && node.writes.has(key)) continue;
      node.writes.set(key, { task: record.task, path: record.path, index, channel, value });
    }
  }
}

/** How many rebuilt message lists an index keeps: the latest checkpoints of a few branches. */
const KEPT_LISTS = 16;

function nodeKey(ns: string, checkpointId: string): string {
  return `${ns}\u0000${checkpointId}`;
}
