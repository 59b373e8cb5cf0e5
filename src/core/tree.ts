import { sameContent } from "./canonical-json.js";
import type { SlotPath } from "./context.js";
import {
  type BranchSummaryEntry,
  type EntryDraft,
  isLeafMarker,
  type LabelEntry,
  LEAF_MARKER_TYPE,
  type SessionEntry,
  type SessionInfoEntry,
} from "./entry.js";
import { NotFoundError } from "./errors.js";
import type { SessionIssue } from "./issues.js";
import { type StampOptions, stampDraft } from "./stamp.js";
import { analyzeStructure } from "./structure.js";
import { ChildLists, grown, INITIAL_SLOTS } from "./tree-children.js";
import { buildForest, type SessionTreeNode } from "./tree-forest.js";
import { givesWayTo, isWellFormed } from "./validate.js";

export type { SessionTreeNode } from "./tree-forest.js";

/** What happened to an entry handed to `load`. */
export type LoadOutcome = "added" | "duplicate" | "conflict";

export interface EntryPosition {
  line?: number;
  offset?: number;
}

/**
 * The in-memory index of one session: entries by id, children by parent, labels, name, leaf.
 * No I/O. Every lookup a caller repeats is O(1); walking to the root is O(path).
 *
 * Leaf markers (see `LEAF_MARKER_TYPE`) are indexed but hidden from the entry list, unless
 * another writer (pi) appended under one, in which case the marker becomes a normal entry.
 */
export class SessionTree {
  private readonly order: SessionEntry[] = [];
  private readonly children = new ChildLists();
  private readonly hiddenMarkers = new Set<string>();
  private readonly labels = new Map<string, { label: string; timestamp: string }>();
  private readonly loadIssues: SessionIssue[] = [];
  private structureIssues: SessionIssue[] = [];
  /** Entries treated as roots because their parent chain loops back to them. */
  private cycleCuts = new Set<string>();
  /**
   * Position of each entry in `order`, and each position's parent position (-1: a root, a missing
   * parent or a cycle cut). Walking to the root follows integers, not string-keyed lookups: a
   * 200,000-deep path is a few milliseconds.
   */
  private readonly slotById = new Map<string, number>();
  /** The entry with this id, hidden markers included. */
  private readonly byId = {
    get: (id: string): SessionEntry | undefined => {
      const slot = this.slotById.get(id);
      return slot === undefined ? undefined : this.order[slot];
    },
    has: (id: string): boolean => this.slotById.has(id),
  };
  /** Grown by doubling, `order.length` of it in use; a typed array, so no collection scans it. */
  private parentSlot: Int32Array<ArrayBuffer> = new Int32Array(INITIAL_SLOTS);
  /** Parent ids referenced but not (yet) present: a later arrival may resolve them. */
  private danglingParents = new Set<string>();
  /** Set when an arrival may have created or resolved a dangling parent or a cycle. */
  private structureStale = false;
  private name: string | undefined;
  private leafId: string | null = null;
  /** Ids taken by entries this tree does not hold (a partial tree: see `reserveIds`). */
  /** Built once (and again on `reserveIds`): an append allocates no closure or options object. */
  private stampOptions: StampOptions = { isTaken: (id) => this.byId.has(id) };

  /** Number of entries, hidden leaf markers included. */
  get size(): number {
    return this.order.length;
  }

  /**
   * Adds an entry read from storage, in storage order. The leaf follows storage order, as in pi
   * (a leaf marker moves it to the marker's parent). Identical duplicates collapse; a conflicting
   * duplicate is reported and the first one wins, unless the first is malformed (`loadDuplicate`).
   * `keepLeaf` adds entries another process wrote without moving this reader's leaf.
   */
  load(entry: SessionEntry, position: EntryPosition = {}, options: { keepLeaf?: boolean } = {}): LoadOutcome {
    const existing = this.slotById.get(entry.id);
    if (existing !== undefined) return this.loadDuplicate(existing, entry, position);
    return this.loadNew(entry, options.keepLeaf === true);
  }

  /**
   * `load` for a reader streaming a file: the position is only made into an object for the
   * report of a duplicate, so a whole read allocates nothing per entry here.
   */
  loadAt(entry: SessionEntry, line: number, offset: number, keepLeaf = false): LoadOutcome {
    const existing = this.slotById.get(entry.id);
    if (existing !== undefined) return this.loadDuplicate(existing, entry, { line, offset });
    return this.loadNew(entry, keepLeaf);
  }

  /** One id lookup for the entry and one for its parent: a whole read calls this per line. */
  private loadNew(entry: SessionEntry, keepLeaf: boolean): LoadOutcome {
    const parentSlot = this.index(entry);
    const parentId = entry.parentId;
    const hidden = this.hiddenMarkers.size > 0 && this.hiddenMarkers.has(entry.id);
    if (keepLeaf) {
      // Another writer's entries: they join the tree, our position in it stays.
    } else if (hidden) {
      this.leafId = parentSlot >= 0 ? parentId : null;
    } else {
      this.leafId = entry.id;
    }
    // A self-parent is a cycle whose "parent" is already present once indexed: flag it too.
    if (
      (this.danglingParents.size > 0 && this.danglingParents.has(entry.id)) ||
      parentId === entry.id ||
      (parentId !== null && parentSlot < 0)
    ) {
      this.structureStale = true;
    }
    return "added";
  }

  /** Re-checks the whole structure: dangling parents and parent cycles. O(n). */
  analyze(): void {
    this.structureStale = false;
    const result = analyzeStructure(this.byId.get, this.order);
    this.structureIssues = result.issues;
    this.cycleCuts = result.cycleCuts;
    this.danglingParents = result.danglingParents;
    for (const [slot, entry] of this.order.entries()) this.parentSlot[slot] = this.parentSlotOf(entry);
  }

  private parentSlotOf(entry: SessionEntry): number {
    if (entry.parentId === null || this.cycleCuts.has(entry.id)) return -1;
    return this.slotById.get(entry.parentId) ?? -1;
  }

  /** Appends a new entry as a child of the leaf and moves the leaf to it. */
  append<E extends SessionEntry>(draft: EntryDraft<E>): E {
    const entry = stampDraft<E>(draft, this.leafId, this.stampOptions);
    this.index(entry);
    this.leafId = entry.id;
    return entry;
  }

  /**
   * Creates a leaf marker for the current leaf: a hidden `custom` entry whose parent is the leaf.
   * The leaf does not move. Persisting it lets a rewind survive a restart (in pi, too).
   */
  markLeaf(): SessionEntry {
    const marker = stampDraft(
      { type: "custom", customType: LEAF_MARKER_TYPE },
      this.leafId,
      this.stampOptions,
    );
    this.index(marker);
    return marker;
  }

  /** Moves the leaf to an existing entry. Nothing is deleted. */
  branch(id: string): void {
    this.requireEntry(id);
    this.leafId = id;
  }

  /** Moves the leaf before the first entry: the next append starts a new root. */
  resetLeaf(): void {
    this.leafId = null;
  }

  /**
   * After a re-read, puts the leaf back where a reader was: null resets it; an id the tree no
   * longer holds leaves the leaf where loading put it.
   */
  restoreLeaf(id: string | null): void {
    if (id === null) this.resetLeaf();
    else if (this.byId.has(id)) this.branch(id);
  }

  /** Moves the leaf to `fromId` (or before the root) and appends a summary of the branch left behind. */
  branchWithSummary(
    fromId: string | null,
    summary: string,
    details?: unknown,
    fromHook?: boolean,
  ): BranchSummaryEntry {
    if (fromId !== null) this.requireEntry(fromId);
    this.leafId = fromId;
    return this.append<BranchSummaryEntry>({
      type: "branch_summary",
      fromId: fromId ?? "root",
      summary,
      details,
      fromHook,
    });
  }

  getLeafId(): string | null {
    return this.leafId;
  }

  getLeafEntry(): SessionEntry | undefined {
    return this.leafId === null ? undefined : this.byId.get(this.leafId);
  }

  /** The entry with this id; hidden leaf markers are not entries to callers. */
  getEntry(id: string): SessionEntry | undefined {
    return this.hiddenMarkers.has(id) ? undefined : this.byId.get(id);
  }

  /** Like `getEntry`, but a missing id is an `entry_not_found` error. */
  requireEntry(id: string): SessionEntry {
    const entry = this.getEntry(id);
    if (!entry) throw new NotFoundError("entry_not_found", `Entry ${id} not found`, { details: { id } });
    return entry;
  }

  /** Whether an id is taken (hidden markers included), for choosing new ids. */
  hasId(id: string): boolean {
    return this.byId.has(id);
  }

  /** All entries in storage order, leaf markers left out. */
  getEntries(): SessionEntry[] {
    if (this.hiddenMarkers.size === 0) return this.order.slice();
    return this.order.filter((entry) => !this.hiddenMarkers.has(entry.id));
  }

  /** All entries in storage order including leaf markers: what a writer must persist. */
  getStoredEntries(): readonly SessionEntry[] {
    return this.order;
  }

  /** Direct children of an entry in storage order. O(children). */
  getChildren(parentId: string | null): SessionEntry[] {
    const parentSlot = parentId === null ? -1 : (this.slotById.get(parentId) ?? -1);
    return this.children.slotsOf(parentId, parentSlot).map((slot) => this.order[slot] as SessionEntry);
  }

  getLabel(id: string): string | undefined {
    return this.labels.get(id)?.label;
  }

  getLabelTimestamp(id: string): string | undefined {
    return this.labels.get(id)?.timestamp;
  }

  /** Resolved labels, target id → label. */
  getLabels(): Map<string, string> {
    return new Map([...this.labels].map(([id, { label }]) => [id, label]));
  }

  /** The latest `session_info` name in storage order; an empty name clears it. */
  getSessionName(): string | undefined {
    return this.name;
  }

  /** Reading and structure problems found so far. */
  getIssues(): SessionIssue[] {
    this.ensureAnalyzed();
    return [...this.loadIssues, ...this.structureIssues];
  }

  /**
   * The path from the root to `fromId` (default: the leaf), in O(path). An unknown id gives an
   * empty path, as in pi. Parent cycles are cut where `analyze` found them, so this always ends.
   */
  getBranch(fromId?: string | null): SessionEntry[] {
    this.ensureAnalyzed();
    const startSlot = this.slotOf(fromId);
    // Sized once and filled from the end: pushing and reversing would copy a long path several
    // times over, and no slot array is needed in between.
    const path = new Array<SessionEntry>(this.depthOf(startSlot));
    for (let index = path.length - 1, slot = startSlot; index >= 0; index--) {
      path[index] = this.order[slot] as SessionEntry;
      slot = this.parentSlot[slot] as number;
    }
    return path;
  }

  /** The position of `fromId` (default: the leaf); -1 for none or an unknown id. */
  private slotOf(fromId: string | null | undefined): number {
    const startId = fromId === undefined ? this.leafId : fromId;
    return startId === null ? -1 : (this.slotById.get(startId) ?? -1);
  }

  /**
   * `getBranch` as positions into the stored entries, without copying an entry: what
   * `projectContext` reads when only the context is wanted.
   */
  getBranchSlots(fromId?: string | null): SlotPath {
    this.ensureAnalyzed();
    const startSlot = this.slotOf(fromId);
    const slots = new Int32Array(this.depthOf(startSlot));
    // The walk goes leaf → root, the path root → leaf: fill from the end.
    for (let index = slots.length - 1, slot = startSlot; index >= 0; index--) {
      slots[index] = slot;
      slot = this.parentSlot[slot] as number;
    }
    return { entries: this.order, slots };
  }

  /** How many entries the walk from `slot` to the root visits. */
  private depthOf(slot: number): number {
    let depth = 0;
    // The budget only matters for a cycle that arrived since the last analysis: a walk always ends.
    for (let budget = this.order.length; slot >= 0 && budget >= 0; budget--) {
      depth++;
      slot = this.parentSlot[slot] as number;
    }
    return depth;
  }

  /**
   * The whole session as a forest, children sorted by timestamp (oldest first). Built iteratively,
   * so a 200,000-deep chain does not overflow the stack. Orphans and cycle cuts become roots.
   */
  getTree(): SessionTreeNode[] {
    this.ensureAnalyzed();
    const { order, parentSlot, hiddenMarkers: hidden, labels } = this;
    return buildForest({ order, parentSlot, hidden, labels });
  }

  private ensureAnalyzed(): void {
    if (this.structureStale) this.analyze();
  }

  /**
   * For a tree that holds only part of a session (a resume that read only the leaf's context): new
   * ids must not be taken by the entries it does not hold either.
   */
  reserveIds(isTaken: (id: string) => boolean): void {
    // An id must be free both among the entries held and among those reserved for the part not held.
    this.stampOptions = { isTaken: (id) => this.byId.has(id) || isTaken(id) };
  }

  /** Indexes a new entry; gives its parent's position (-1: a root, or a parent not present). */
  private index(entry: SessionEntry): number {
    const slot = this.order.length;
    const parentId = entry.parentId;
    this.slotById.set(entry.id, slot);
    const parentSlot = parentId === null ? -1 : this.slotOfParent(parentId, slot);
    this.order.push(entry);
    this.children.addSlot(entry.id);
    // Sets are asked only when not empty: most sessions have no cycle and few markers.
    const cut = this.cycleCuts.size > 0 && this.cycleCuts.has(entry.id);
    if (slot === this.parentSlot.length) this.parentSlot = grown(this.parentSlot, slot * 2);
    this.parentSlot[slot] = cut ? -1 : parentSlot;
    if (isLeafMarker(entry)) this.hiddenMarkers.add(entry.id);
    else this.children.link(slot, parentId, parentSlot);
    if (parentId !== null && this.hiddenMarkers.size > 0 && this.hiddenMarkers.has(parentId)) {
      // Someone built on a marker (pi does, since it is pi's leaf): it is history now, show it.
      this.hiddenMarkers.delete(parentId);
      this.linkChild(this.order[parentSlot] as SessionEntry);
    }
    this.applyMetadata(entry);
    return parentSlot;
  }

  /**
   * The position of the parent of the entry about to take `slot`: most entries follow their parent
   * in storage order (a chain, a branch being written), which a string comparison settles without a
   * lookup. The entry before is never the entry itself: a repeated id is not indexed again.
   */
  private slotOfParent(parentId: string, slot: number): number {
    if (slot > 0 && (this.order[slot - 1] as SessionEntry).id === parentId) return slot - 1;
    return this.slotById.get(parentId) ?? -1;
  }

  private linkChild(entry: SessionEntry): void {
    const parentSlot = entry.parentId === null ? -1 : (this.slotById.get(entry.parentId) ?? -1);
    this.children.link(this.slotById.get(entry.id) as number, entry.parentId, parentSlot);
  }

  /**
   * What a label or a name sets, in storage order. A malformed one (read from a file:
   * core/validate.ts) holds its place and sets nothing.
   */
  private applyMetadata(entry: SessionEntry): void {
    if (entry.type !== "label" && entry.type !== "session_info") return;
    if (!isWellFormed(entry)) return;
    if (entry.type === "label") this.applyLabel(entry as LabelEntry);
    else this.name = (entry as SessionInfoEntry).name?.trim() || undefined;
  }

  private applyLabel(entry: LabelEntry): void {
    if (entry.label) this.labels.set(entry.targetId, { label: entry.label, timestamp: entry.timestamp });
    else this.labels.delete(entry.targetId);
  }

  /** A second entry with an id already held: the first is kept unless it gives way (`givesWayTo`). */
  private loadDuplicate(slot: number, entry: SessionEntry, position: EntryPosition): LoadOutcome {
    const held = this.order[slot] as SessionEntry;
    if (!givesWayTo(held, entry)) return this.reportDuplicate(held, entry, position);
    this.order[slot] = entry;
    this.applyMetadata(entry);
    this.loadIssues.push({
      code: "duplicate_conflict",
      severity: "warning",
      message: `Entry ${entry.id} appears twice; the first copy is malformed and the second, well-formed, is kept`,
      entryId: entry.id,
      ...position,
    });
    return "duplicate";
  }

  private reportDuplicate(existing: SessionEntry, entry: SessionEntry, position: EntryPosition): LoadOutcome {
    const identical = sameContent(existing, entry);
    this.loadIssues.push({
      code: identical ? "duplicate_identical" : "duplicate_conflict",
      severity: identical ? "info" : "error",
      message: identical
        ? `Entry ${entry.id} appears twice with the same content; kept once`
        : `Entry ${entry.id} appears twice with different content; the first is kept`,
      entryId: entry.id,
      ...position,
    });
    return identical ? "duplicate" : "conflict";
  }
}
