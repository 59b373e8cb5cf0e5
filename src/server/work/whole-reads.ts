import type { SessionEntry } from "../../core/entry.js";
import type { Reply } from "../http/route.js";
import type { ServerServices } from "../services.js";
import { computePool } from "./compute-pool.js";
import type { ComputeTask } from "./compute-protocol.js";
import { pieceStream } from "./piece-stream.js";
import { enterStreamedRead, gatedRead } from "./read-gate.js";
import { feedSession, withoutPayload } from "./session-snapshot.js";
import { TimeSlicer } from "./time-slicer.js";

/**
 * The answers that cover a whole session (its tree, a branch, a context, its labels): the event
 * loop reads the session a page at a time and hands the pages to a compute worker, which builds
 * the answer (work/compute-pool.ts, compute-jobs.ts); under the per-user cap (work/read-gate.ts)
 * and the response size bound (work/json-chunks.ts).
 */
interface WholeRead {
  services: ServerServices;
  owner: string;
  sessionId: string;
}

/** Answers up to this size are sent whole; larger ones in runs of it. */
const STREAM_FROM_BYTES = 64 * 1024;

async function answer(
  { services, owner, sessionId }: WholeRead,
  task: ComputeTask,
  keep?: (entry: SessionEntry) => SessionEntry,
): Promise<Reply> {
  return gatedRead(services, owner, async () => {
    const job = computePool().open(task);
    try {
      const summary = await feedSession(services, owner, sessionId, job, new TimeSlicer(), keep);
      const result = await job.finish();
      if (!("bytes" in result)) throw new Error(`compute worker: no bytes for ${task.kind}`);
      const body = jsonBody(result.bytes);
      return { body, contentType: "application/json", revision: summary.revision };
    } finally {
      job.drop();
    }
  });
}

/** A small answer as one string; a large one sent in runs, a run per event-loop turn at most. */
function jsonBody(bytes: Uint8Array): string | ReadableStream<Uint8Array> {
  if (bytes.byteLength <= STREAM_FROM_BYTES) return new TextDecoder().decode(bytes);
  function* runs(): Generator<Uint8Array> {
    for (let at = 0; at < bytes.byteLength; at += STREAM_FROM_BYTES)
      yield bytes.subarray(at, at + STREAM_FROM_BYTES);
  }
  return pieceStream(runs());
}

/** `{ leafId, roots, nodes }`: GET …/tree. */
export function treeAnswer(read: WholeRead): Promise<Reply> {
  return answer(read, { kind: "tree", maxBytes: read.services.limits.maxResponseBytes }, withoutPayload);
}

/** `{ leafId, entries }`, the path root → leafId (default the leaf): GET …/branch. */
export function branchAnswer(read: WholeRead, leafId: string | undefined): Promise<Reply> {
  const maxBytes = read.services.limits.maxResponseBytes;
  return answer(read, { kind: "branch", leafId, sessionId: read.sessionId, maxBytes });
}

/** pi's buildSessionContext at leafId (default the leaf): GET …/context. */
export function contextAnswer(read: WholeRead, leafId: string | undefined): Promise<Reply> {
  const maxBytes = read.services.limits.maxResponseBytes;
  return answer(read, { kind: "context", leafId, sessionId: read.sessionId, maxBytes });
}

/** `{ labels }`, target id → label: GET …/labels. */
export function labelsAnswer(read: WholeRead): Promise<Reply> {
  return answer(read, { kind: "labels", maxBytes: read.services.limits.maxResponseBytes }, withoutPayload);
}

export const JSONL = "application/x-ndjson";

/**
 * The session as pi JSONL: GET …/export, streamed a page of entries at a time (the store's
 * `exportJsonlPages`), so memory holds a page, not the file, and the read holds the event loop a
 * slice at a time. A missing session is still a 404: it is found before the answer starts. The
 * answer holds its whole-read slot until its last byte is sent (or the client goes away). Not
 * subject to the response size bound: nothing of it is assembled.
 */
export async function exportAnswer({ services, owner, sessionId }: WholeRead): Promise<Reply> {
  const { leave, step } = enterStreamedRead(services, owner);
  try {
    const { summary, pieces } = await step(() => services.store.exportJsonlPages(owner, sessionId));
    return {
      body: pieceStream(stepped(pieces, step), leave),
      contentType: JSONL,
      revision: summary.revision,
    };
  } catch (error) {
    leave();
    throw error;
  }
}

/** The pieces, each read inside `step` (an instance slot for the read of one page). */
async function* stepped<T>(
  pieces: AsyncIterable<T> | Iterable<T>,
  step: <R>(read: () => Promise<R>) => Promise<R>,
): AsyncGenerator<T> {
  const iterator =
    Symbol.asyncIterator in pieces ? pieces[Symbol.asyncIterator]() : pieces[Symbol.iterator]();
  try {
    for (;;) {
      const next = await step(async () => await iterator.next());
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await iterator.return?.();
  }
}
