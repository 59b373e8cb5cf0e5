import { parentPort } from "node:worker_threads";
import { type ComputeJob, openJob } from "./compute-jobs.js";
import { type FromWorker, type ToWorker, toWire } from "./compute-protocol.js";
import { lowerThreadPriority } from "./thread-priority.js";

/**
 * A compute worker's thread (started by work/compute-pool.ts): builds whole-session answers from
 * the pages the main thread posts, several jobs interleaved, and posts each answer back (a JSON
 * answer's bytes are moved, not copied). A job that fails answers its error; the thread goes on.
 */
const port = parentPort;
if (!port) throw new Error("compute-worker.ts runs as a worker thread");
lowerThreadPriority();

const jobs = new Map<number, ComputeJob>();
const failed = new Map<number, unknown>();

port.on("message", (message: ToWorker) => {
  const { job } = message;
  if (message.op === "drop") {
    jobs.delete(job);
    failed.delete(job);
    return;
  }
  if (failed.has(job)) {
    // Failed on an earlier page: the pages still on their way are dropped, `finish` answers.
    if (message.op === "finish") {
      reply({ job, ok: false, error: toWire(failed.get(job)) });
      failed.delete(job);
    }
    return;
  }
  try {
    switch (message.op) {
      case "open":
        jobs.set(job, openJob(message.task));
        break;
      case "entries":
        jobOf(job).add(message.entries);
        break;
      case "session":
        jobOf(job).endSession(message.head);
        break;
      case "discard":
        jobOf(job).discardSession();
        break;
      case "finish":
        void finish(job, jobOf(job));
        break;
    }
  } catch (error) {
    jobs.delete(job);
    if (message.op === "finish") reply({ job, ok: false, error: toWire(error) });
    else failed.set(job, error);
  }
});

function jobOf(job: number): ComputeJob {
  const found = jobs.get(job);
  if (!found) throw new Error(`no compute job ${job}`);
  return found;
}

async function finish(job: number, work: ComputeJob): Promise<void> {
  jobs.delete(job);
  try {
    const result = await work.finish();
    reply({ job, ok: true, result }, "bytes" in result ? [result.bytes.buffer as ArrayBuffer] : []);
  } catch (error) {
    reply({ job, ok: false, error: toWire(error) });
  }
}

function reply(message: FromWorker, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(message, transfer);
}
