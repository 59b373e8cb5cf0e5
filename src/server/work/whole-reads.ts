import { projectContext } from "../../core/context.js";
import type { SessionEntry } from "../../core/entry.js";
import { NotFoundError } from "../../core/errors.js";
import type { Reply } from "../http/route.js";
import type { ServerServices } from "../services.js";
import { flattenTreeSliced } from "./flat-tree.js";
import { JsonChunks } from "./json-chunks.js";
import { pieceStream } from "./piece-stream.js";
import { enterRead, gatedRead } from "./read-gate.js";
import { readSnapshot, type SessionSnapshot, withoutPayload } from "./session-snapshot.js";
import { TimeSlicer } from "./time-slicer.js";

/**
 * The answers that cover a whole session (its tree, a branch, a context, its labels), computed in
 * slices that give the event loop back (work/time-slicer.ts), under the per-user cap
 * (work/read-gate.ts) and the response size bound (work/json-chunks.ts).
 */
interface WholeRead {
  services: ServerServices;
  owner: string;
  sessionId: string;
}

/** Answers up to this size are sent whole; larger ones in runs of it. */
const STREAM_FROM_BYTES = 64 * 1024;

type Compose = (snapshot: SessionSnapshot, out: JsonChunks, slicer: TimeSlicer) => Promise<void>;

async function answer(
  { services, owner, sessionId }: WholeRead,
  compose: Compose,
  keep?: (entry: SessionEntry) => SessionEntry,
): Promise<Reply> {
  return gatedRead(services, owner, async () => {
    const slicer = new TimeSlicer();
    const snapshot = await readSnapshot(services, owner, sessionId, slicer, keep);
    const out = new JsonChunks(slicer, services.limits.maxResponseBytes);
    await compose(snapshot, out, slicer);
    // A large answer goes out in runs, a slice at a time: never one string of its size to encode.
    const body = out.size <= STREAM_FROM_BYTES ? out.text() : pieceStream(out.runs(STREAM_FROM_BYTES));
    return { body, contentType: "application/json", revision: snapshot.summary.revision };
  });
}

/** `{ leafId, roots, nodes }`: GET …/tree. */
export function treeAnswer(read: WholeRead): Promise<Reply> {
  return answer(
    read,
    async ({ summary, tree }, out, slicer) => {
      const { roots, nodes } = await flattenTreeSliced(tree, slicer);
      await out.raw(`{"leafId":${JSON.stringify(summary.leafId)},"roots":${JSON.stringify(roots)},"nodes":[`);
      await out.array(nodes);
      await out.raw("]}");
    },
    withoutPayload,
  );
}

/** `{ leafId, entries }`, the path root → leafId (default the leaf): GET …/branch. */
export function branchAnswer(read: WholeRead, leafId: string | undefined): Promise<Reply> {
  return answer(read, async (snapshot, out) => {
    const { at, path } = pathAt(snapshot, leafId, read.sessionId);
    await out.raw(`{"leafId":${JSON.stringify(at)},"entries":[`);
    await out.array(path);
    await out.raw("]}");
  });
}

/** pi's buildSessionContext at leafId (default the leaf): GET …/context. */
export function contextAnswer(read: WholeRead, leafId: string | undefined): Promise<Reply> {
  return answer(read, async (snapshot, out) => {
    const { at, path } = pathAt(snapshot, leafId, read.sessionId);
    const { messages, thinkingLevel, model, extensionState, messageEntryIds, warnings } =
      projectContext(path);
    await out.raw(`{"leafId":${JSON.stringify(at)},"messages":[`);
    await out.array(messages);
    // The other fields as JSON.stringify writes them (an undefined one is left out).
    const rest = JSON.stringify({ thinkingLevel, model, extensionState, messageEntryIds, warnings });
    await out.raw(rest === "{}" ? "]}" : `],${rest.slice(1)}`);
  });
}

/** `{ labels }`, target id → label: GET …/labels. */
export function labelsAnswer(read: WholeRead): Promise<Reply> {
  return answer(
    read,
    async ({ tree }, out) => {
      await out.raw(JSON.stringify({ labels: Object.fromEntries(tree.getLabels()) }));
    },
    withoutPayload,
  );
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
  const leave = await enterRead(services, owner);
  try {
    const { summary, pieces } = await services.store.exportJsonlPages(owner, sessionId);
    return { body: pieceStream(pieces, leave), contentType: JSONL, revision: summary.revision };
  } catch (error) {
    leave();
    throw error;
  }
}

/** The branch a read names, as the store's readBranch finds it (an unknown leaf is entry_not_found). */
function pathAt(
  { summary, tree }: SessionSnapshot,
  leafId: string | undefined,
  sessionId: string,
): { at: string | null; path: SessionEntry[] } {
  const at = leafId ?? summary.leafId;
  if (at === null) return { at, path: [] };
  if (tree.getEntry(at) === undefined) {
    throw new NotFoundError("entry_not_found", `Entry ${at} not found in session ${sessionId}`, {
      details: { sessionId, entryId: at },
    });
  }
  return { at, path: tree.getBranch(at) };
}
