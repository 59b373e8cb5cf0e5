import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import { isSessionTreeError, ValidationError } from "../../core/errors.js";
import { DEFAULT_OWNER } from "../history/open-history.js";
import { type ModelLabel, UNKNOWN_MODEL } from "../history/pi-messages.js";
import { StoreHandle, StoreHistory, type StoreOrLocation } from "../history/store-history.js";
import { addressOf, checkpointIdOf, checkThreadId, threadIdOf } from "./config.js";
import { listed, matches } from "./list-query.js";
import { planPut } from "./put-plan.js";
import { ThreadIndex } from "./thread-index.js";
import { runIn, type ThreadState, ThreadStates } from "./thread-state.js";
import { ThreadWriter } from "./thread-writer.js";
import { readTuple, type TupleContext } from "./tuple.js";
import { WaitingWrites } from "./waiting-writes.js";
import { planWrites } from "./writes-plan.js";

export interface SessionTreeSaverOptions {
  /** A SessionStore, or a location for `openStore` ("sqlite:graphs.db", "jsonl:folder", "memory:"). */
  store: StoreOrLocation;
  /** The store's tenant. Default "local". */
  owner?: string;
  /** The `cwd` header field of a new thread's session. Default "". */
  cwd?: string;
  /** The provider and model put on assistant messages whose response names no model. */
  model?: ModelLabel;
  /** LangGraph's serializer (default: its JsonPlusSerializer). */
  serde?: SerializerProtocol;
  /**
   * Idle threads whose index is kept in memory at once (least recently used go first; a thread in
   * use is never dropped, so more may be running). Default 100.
   */
  cachedThreads?: number;
  /**
   * How long writes against a checkpoint not stored yet wait for its put before failing with
   * `entry_not_found`. Default 30 000 ms.
   */
  writesWaitMs?: number;
}

function writesKey(ns: string, checkpointId: string): string {
  return `${ns}\u0000${checkpointId}`;
}

/**
 * A LangGraph checkpointer over a sessiontree SessionStore: a thread is a session (its id is the
 * `thread_id`), a checkpoint is a `custom` entry under its parent's, so the checkpoints form the
 * tree their parent ids describe (a time travel or a fork is a branch) and the latest checkpoint
 * is the leaf. A message list (`messages`) is kept as one message entry per message, the rest of
 * sessiontree reads them as a conversation, and each checkpoint stores only what changed. A
 * thread's writes are planned on its index as they come and stored a batch at a time
 * (`ThreadWriter`); every call answers once what it wrote is stored.
 */
export class SessionTreeSaver extends BaseCheckpointSaver {
  private readonly handle: StoreHandle;
  private readonly owner: string;
  private readonly cwd: string;
  private readonly label: ModelLabel;
  private readonly writesWaitMs: number;
  private readonly threads: ThreadStates;

  constructor(options: SessionTreeSaverOptions) {
    super(options.serde);
    this.handle = new StoreHandle(options.store);
    this.owner = options.owner ?? DEFAULT_OWNER;
    this.cwd = options.cwd ?? "";
    this.label = options.model ?? UNKNOWN_MODEL;
    this.writesWaitMs = options.writesWaitMs ?? 30_000;
    this.threads = new ThreadStates(options.cachedThreads ?? 100, (threadId) => this.newThread(threadId));
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) return undefined;
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? "";
    const checkpointId = checkpointIdOf(config);
    return this.threads.run(threadId, async (state) => {
      const index = await this.indexOf(state, threadId, true);
      const node = checkpointId === undefined ? index.latest(ns) : index.node(ns, checkpointId);
      return node && readTuple(this.tupleContext(state, index, threadId), node);
    });
  }

  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const threadId = threadIdOf(config);
    let remaining = options.limit ?? Number.POSITIVE_INFINITY;
    for (const thread of threadId === undefined ? await this.allThreads() : [threadId]) {
      if (remaining <= 0) return;
      const tuples = await this.threads.run(thread, async (state) => {
        const index = await this.indexOf(state, thread, true);
        const found: CheckpointTuple[] = [];
        for (const node of listed(index, config, options)) {
          if (found.length >= remaining) break;
          const tuple = await readTuple(this.tupleContext(state, index, thread), node);
          if (matches(tuple.metadata, options.filter)) found.push(tuple);
        }
        return found;
      });
      remaining -= tuples.length;
      yield* tuples;
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const { threadId, ns, checkpointId: parentId } = addressOf(config, "put a checkpoint");
    const planned = await this.threads.run(threadId, async (state) => {
      const request = { ns, parentId, checkpoint, metadata, newVersions };
      const ctx = (index: ThreadIndex) => ({
        serde: this.serde,
        index,
        identity: state.identity,
        label: this.label,
      });
      const put = await state.writer.plan((index) => planPut(ctx(index), request));
      // Writes that came first are planned right behind it, into the same batch.
      await state.waiting.release(writesKey(ns, checkpoint.id));
      return put;
    });
    await planned.stored;
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  /**
   * Stores a task's writes against a checkpoint. LangGraph calls this without waiting for the put
   * of that checkpoint (it chains its puts, not its writes), so writes against a checkpoint not
   * planned yet wait for its put, and are planned (and stored, and answered) right after it.
   */
  async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath?: string,
  ): Promise<void> {
    const { threadId, ns, checkpointId } = addressOf(config, "put writes");
    if (checkpointId === undefined) {
      throw new ValidationError(
        "invalid_argument",
        "Cannot put writes: the config has no configurable.checkpoint_id",
      );
    }
    const pending = { ns, checkpointId, writes, taskId, taskPath: taskPath ?? "" };
    const planned = await this.threads.run(threadId, async (state) => {
      let index = await this.indexOf(state, threadId, false);
      // Not known here: maybe another process put it; read the session again before waiting.
      if (!index.node(ns, checkpointId)) index = await this.indexOf(state, threadId, true);
      const plan = () => state.writer.plan((fresh) => planWrites(this.serde, fresh, threadId, pending));
      if (index.node(ns, checkpointId)) return plan();
      return { stored: state.waiting.wait(writesKey(ns, checkpointId), plan) };
    });
    await planned.stored;
  }

  async deleteThread(threadId: string): Promise<void> {
    checkThreadId(threadId);
    await this.threads.run(threadId, async (state) => {
      await state.writer.flush();
      const store = await this.handle.get();
      try {
        await store.purgeSession(this.owner, threadId);
      } catch (error) {
        if (!isSessionTreeError(error, "session_not_found")) throw error;
      }
      state.index = undefined;
      state.history = this.historyOf(threadId);
      state.identity = new WeakMap();
    });
  }

  /** Closes the store when the saver opened it from a location. */
  async close(): Promise<void> {
    await this.handle.close();
  }

  private tupleContext(state: ThreadState, index: ThreadIndex, threadId: string): TupleContext {
    return {
      serde: this.serde,
      index,
      threadId,
      identity: state.identity,
      firstVersion: () => this.getNextVersion(undefined),
    };
  }

  /**
   * The thread's index: the one kept (with the writes planned on it), unless it was dropped;
   * with `check` (a read), its planned writes are stored first, and it is read again when the
   * store's session is not the one it reflects: another writer got in since (the revision moved),
   * or deleted the thread and wrote it again (the same revision, but not the same leaf). A write
   * checks by naming the revision.
   */
  private async indexOf(state: ThreadState, threadId: string, check: boolean): Promise<ThreadIndex> {
    if (check) await state.writer.flush();
    const kept = state.index;
    if (kept && (!check || kept.reflects(await state.history.head()))) return kept;
    const store = await this.handle.get();
    try {
      const { summary, entries } = await store.loadSession(this.owner, threadId);
      state.index = ThreadIndex.fromEntries(entries, summary.revision, summary.leafId);
    } catch (error) {
      if (!isSessionTreeError(error, "session_not_found")) throw error;
      state.index = new ThreadIndex(undefined, null);
    }
    return state.index;
  }

  private newThread(threadId: string): ThreadState {
    const state: ThreadState = {
      history: this.historyOf(threadId),
      index: undefined,
      queue: Promise.resolve(),
      calls: 0,
      identity: new WeakMap(),
      waiting: new WaitingWrites(this.writesWaitMs),
      writer: new ThreadWriter({
        get history() {
          return state.history;
        },
        index: () => this.indexOf(state, threadId, false),
        forget: () => {
          state.index = undefined;
        },
        run: (work) => runIn(state, work),
      }),
    };
    return state;
  }

  private historyOf(threadId: string): StoreHistory {
    return new StoreHistory(this.handle, this.owner, threadId, { cwd: this.cwd });
  }

  private async allThreads(): Promise<string[]> {
    const store = await this.handle.get();
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await store.listSessions(this.owner, { limit: 1000, cursor });
      ids.push(...page.items.map((summary) => summary.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    return ids;
  }
}
