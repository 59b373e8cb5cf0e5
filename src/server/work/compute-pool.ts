import { Worker } from "node:worker_threads";
import type { SessionEntry } from "../../core/entry.js";
import {
  type ComputeResult,
  type ComputeTask,
  type FromWorker,
  fromWire,
  type SessionHead,
  type ToWorker,
} from "./compute-protocol.js";

/**
 * Worker threads that build whole-session answers (work/compute-worker.ts). Why threads and not
 * only slices: some of the work is one call into core or format code that cannot be cut (pi's
 * context projection, the stats arithmetic: tens to hundreds of ms on a 30,000-entry session), and
 * a session held whole on the event loop's heap makes its garbage collections long too. Here the
 * event loop only reads pages from the store and posts them; the tree, the answer and their
 * garbage live in a worker's heap. The whole-read caps (work/read-gate.ts) bound how many jobs run.
 *
 * Workers start on first use and stay; an idle worker does not keep the process alive.
 */
export const COMPUTE_WORKERS = 2;

interface PoolWorker {
  worker: Worker;
  pending: Map<number, { resolve(result: ComputeResult): void; reject(error: Error): void }>;
}

/** One job on a worker: pages in, then the answer. */
export interface ComputeHandle {
  add(entries: SessionEntry[]): void;
  endSession(head: SessionHead): void;
  /** Forgets the pages sent since the last head. */
  discardSession(): void;
  finish(): Promise<ComputeResult>;
  /** The read failed on the main thread: the worker forgets the job. */
  drop(): void;
}

export class ComputePool {
  private readonly workers: PoolWorker[] = [];
  private nextJob = 1;

  constructor(private readonly size = COMPUTE_WORKERS) {}

  open(task: ComputeTask): ComputeHandle {
    const slot = this.pick();
    const job = this.nextJob++;
    const post = (message: ToWorker) => slot.worker.postMessage(message);
    let answer: Promise<ComputeResult> | undefined;
    // Registered now, so a worker that dies mid-job fails it at once.
    const settled = new Promise<ComputeResult>((resolve, reject) =>
      slot.pending.set(job, { resolve, reject }),
    );
    settled.catch(() => {}); // awaited by `finish`; a dropped job's failure has no reader
    slot.worker.ref();
    post({ op: "open", job, task });
    return {
      add: (entries) => post({ op: "entries", job, entries }),
      endSession: (head) => post({ op: "session", job, head }),
      discardSession: () => post({ op: "discard", job }),
      finish: () => {
        if (!answer) {
          post({ op: "finish", job });
          answer = settled;
        }
        return answer;
      },
      drop: () => {
        if (!slot.pending.delete(job)) return;
        post({ op: "drop", job });
        if (slot.pending.size === 0) slot.worker.unref();
      },
    };
  }

  /** Ends every worker (their jobs fail). */
  async close(): Promise<void> {
    await Promise.all(this.workers.splice(0).map(({ worker }) => worker.terminate()));
  }

  /** The least busy worker; a new one while there are fewer than `size` and all are busy. */
  private pick(): PoolWorker {
    let best: PoolWorker | undefined;
    for (const slot of this.workers) if (!best || slot.pending.size < best.pending.size) best = slot;
    if (best && (best.pending.size === 0 || this.workers.length >= this.size)) return best;
    return this.start();
  }

  private start(): PoolWorker {
    const worker = startWorker();
    const slot: PoolWorker = { worker, pending: new Map() };
    worker.unref();
    worker.on("message", (message: FromWorker) => {
      const waiting = slot.pending.get(message.job);
      if (!waiting) return; // dropped
      slot.pending.delete(message.job);
      if (slot.pending.size === 0) worker.unref();
      if (message.ok) waiting.resolve(message.result);
      else waiting.reject(fromWire(message.error));
    });
    const fail = (error: Error) => {
      const at = this.workers.indexOf(slot);
      if (at >= 0) this.workers.splice(at, 1);
      for (const waiting of slot.pending.values()) waiting.reject(error);
      slot.pending.clear();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`compute worker exited with code ${code}`)));
    this.workers.push(slot);
    return slot;
  }
}

/**
 * Built, the worker is the .js file beside this one. Run from source under tsx, it is the .ts
 * file, which a worker thread cannot load by itself on Node 20 (the main thread's `--import tsx`
 * does not reach a worker's entry): a two-line bootstrap loads it through tsx's API.
 */
function startWorker(): Worker {
  if (!import.meta.url.endsWith(".ts")) return new Worker(new URL("./compute-worker.js", import.meta.url));
  const api = JSON.stringify(import.meta.resolve("tsx/esm/api"));
  const entry = JSON.stringify(new URL("./compute-worker.ts", import.meta.url).href);
  const bootstrap = `import(${api}).then(({ tsImport }) => tsImport(${entry}, ${JSON.stringify(import.meta.url)}))`;
  return new Worker(bootstrap, { eval: true });
}

let shared: ComputePool | undefined;

/** The process's pool, shared by every server in it (workers hold no server state). */
export function computePool(): ComputePool {
  shared ??= new ComputePool();
  return shared;
}
