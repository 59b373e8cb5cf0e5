import type { EntryDraft, SessionEntry } from "../../core/entry.js";
import { retryOnRace } from "../history/retry.js";
import { plannedRevision, type StoreHistory, stampChain } from "../history/store-history.js";
import type { ThreadIndex } from "./thread-index.js";

/** What one put or putWrites writes, planned on the thread's index. */
export interface PlannedAppend {
  /** Where the chain hangs (null: a new root). */
  parentId: string | null;
  drafts: EntryDraft[];
  /** Leave the leaf where it is (writes against an older checkpoint). */
  keepLeaf: boolean;
  /** Runs once the stamped entries are in the index. */
  applied?(entries: readonly SessionEntry[]): void;
}

/** Plans a write on the index (undefined: nothing to write); run again when the write raced. */
export type Planner = (index: ThreadIndex) => Promise<PlannedAppend | undefined>;

/**
 * A planned write's promise of being stored, wrapped: a queued job answering it must not hold the
 * thread's queue until it settles (the batch that stores it runs behind that job in the queue).
 */
export interface Planned {
  stored: Promise<void>;
}

/** What the writer needs of its thread (the saver's per-thread state). */
export interface WriterThread {
  readonly history: StoreHistory;
  /** The thread's index, read from the store when none is kept. */
  index(): Promise<ThreadIndex>;
  /** Drops the kept index: it is read again before the next use. */
  forget(): void;
  /** Runs `work` in the thread's queue, after every call queued before it. */
  run(work: () => Promise<void>): Promise<void>;
}

interface Queued {
  planner: Planner;
  entries: SessionEntry[];
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Group commit of one thread's writes. LangGraph does not wait for one checkpoint's writes before
 * the next call (its puts are chained, its writes are not), so the calls of a superstep arrive
 * while the previous write is stored. Each is planned on the index at once (its entries stamped
 * and taken in, so the next plans on top of it), and everything planned by the time the store is
 * free goes in one append: one transaction where there were one per call. A call still answers
 * only when its entries are stored. When a batch fails (another process wrote the thread, or one
 * write is refused), every write of it is planned again on a fresh read and stored alone, so one
 * failure fails only its own call.
 */
export class ThreadWriter {
  private queued: Queued[] = [];
  private taken = new Set<string>();
  private scheduled = false;

  constructor(private readonly thread: WriterThread) {}

  /** Whether nothing is planned and not stored: the writer can be dropped with its thread. */
  get idle(): boolean {
    return this.queued.length === 0 && !this.scheduled;
  }

  /** Plans a write into the next batch. Call it in the thread's queue. */
  async plan(planner: Planner): Promise<Planned> {
    const index = await this.thread.index();
    const entries = await stampPlanned(index, planner, this.taken);
    if (entries === undefined) return { stored: Promise.resolve() };
    const stored = new Promise<void>((resolve, reject) => {
      this.queued.push({ planner, entries, resolve, reject });
    });
    this.schedule();
    return { stored };
  }

  /** Stores what is planned (before a read, and when the batch's turn comes). In the thread's queue. */
  async flush(): Promise<void> {
    const batch = this.queued;
    this.queued = [];
    this.taken = new Set();
    if (batch.length === 0) return;
    try {
      await this.store(
        await this.thread.index(),
        batch.flatMap((queued) => queued.entries),
      );
      for (const queued of batch) queued.resolve();
    } catch {
      this.thread.forget();
      for (const queued of batch) {
        try {
          await this.writeAlone(queued.planner);
          queued.resolve();
        } catch (error) {
          queued.reject(error);
        }
      }
    }
  }

  /** A flush in the thread's queue once this turn of the event loop is over. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // The calls LangGraph makes in the meantime (a put answered starts the next) join the batch.
    setImmediate(() => {
      this.scheduled = false;
      // A failure reaches the callers through their own promises.
      this.thread.run(() => this.flush()).catch(() => undefined);
    });
  }

  private writeAlone(planner: Planner): Promise<void> {
    return retryOnRace(async () => {
      const index = await this.thread.index();
      try {
        const entries = await stampPlanned(index, planner, new Set());
        if (entries !== undefined) await this.store(index, entries);
      } catch (error) {
        this.thread.forget();
        throw error;
      }
    });
  }

  /**
   * One append naming the revision the index reflects (the leaf moves with it when the index's
   * leaf is its last entry), then the leaf set apart when the index left it elsewhere.
   */
  private async store(index: ThreadIndex, entries: SessionEntry[]): Promise<void> {
    const history = this.thread.history;
    let result = await history.appendStamped(entries, {
      expectedRevision: plannedRevision(index),
      moveLeaf: index.leafId === entries.at(-1)?.id,
    });
    if (result.leafId !== index.leafId) result = await history.setLeaf(index.leafId, result.revision);
    index.revision = result.revision;
  }
}

/** Plans on the index, stamps the entries (ids not in `taken`) and takes them into the index. */
async function stampPlanned(
  index: ThreadIndex,
  planner: Planner,
  taken: Set<string>,
): Promise<SessionEntry[] | undefined> {
  const planned = await planner(index);
  if (planned === undefined || planned.drafts.length === 0) return undefined;
  const entries = stampChain(planned.parentId, planned.drafts, taken);
  index.applyPlanned(entries, planned.keepLeaf);
  planned.applied?.(entries);
  return entries;
}
