import type { StoreHistory } from "../history/store-history.js";
import type { ThreadIndex } from "./thread-index.js";
import type { ThreadWriter } from "./thread-writer.js";
import type { WaitingWrites } from "./waiting-writes.js";

/** What the saver keeps for one thread: its session, its index, and the queue its calls wait in. */
export interface ThreadState {
  history: StoreHistory;
  index: ThreadIndex | undefined;
  queue: Promise<unknown>;
  /** Calls in the queue, waiting or running. */
  calls: number;
  /** Message instances the graph got from (or gave to) this saver, by the entry holding each. */
  identity: WeakMap<object, string>;
  /** Writes that came before their checkpoint's put. */
  waiting: WaitingWrites;
  /** The writes planned and not stored yet, stored a batch at a time. */
  writer: ThreadWriter;
}

/**
 * The threads the saver keeps, the least recently used idle ones dropped past `capacity`, and the
 * queue of each: one thread's calls never interleave. A thread in use is never dropped, whatever
 * the capacity: its state is where its calls queue, its writes wait for their checkpoint's put and
 * its planned writes wait to be stored, and a second state made for it would hold none of that
 * (a put would release no writes of the first, which would fail as never put).
 */
export class ThreadStates {
  private readonly threads = new Map<string, ThreadState>();

  constructor(
    private readonly capacity: number,
    private readonly create: (threadId: string) => ThreadState,
  ) {}

  /** Runs `work` after every earlier call on the thread. */
  run<T>(threadId: string, work: (state: ThreadState) => Promise<T>): Promise<T> {
    return runIn(this.stateOf(threadId), work);
  }

  private stateOf(threadId: string): ThreadState {
    let state = this.threads.get(threadId);
    if (state) this.threads.delete(threadId);
    else state = this.create(threadId);
    this.threads.set(threadId, state);
    for (const [id, kept] of this.threads) {
      if (this.threads.size <= this.capacity) break;
      if (kept !== state && idle(kept)) this.threads.delete(id);
    }
    return state;
  }
}

/** Whether dropping the state loses nothing: no call queued, no writes waiting or planned. */
function idle(state: ThreadState): boolean {
  return state.calls === 0 && state.waiting.empty && state.writer.idle;
}

/** Runs `work` in the state's queue. */
export function runIn<T>(state: ThreadState, work: (state: ThreadState) => Promise<T>): Promise<T> {
  state.calls++;
  const run = state.queue.then(() => work(state));
  state.queue = run.catch(() => undefined);
  const done = () => {
    state.calls--;
  };
  run.then(done, done);
  return run;
}
