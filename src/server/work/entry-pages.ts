import { normalizeEntryPage } from "../../store/engine/cursor.js";
import { DEFAULT_PAGE_SIZE } from "../../store/engine/paged-read.js";
import type { Reply } from "../http/route.js";
import type { ServerServices } from "../services.js";
import { JsonChunks } from "./json-chunks.js";
import { pieceStream } from "./piece-stream.js";
import { TimeSlicer } from "./time-slicer.js";

/** Answers up to this size are sent whole; larger ones in runs of it. */
const STREAM_FROM_BYTES = 64 * 1024;

/**
 * GET …/entries: a page of up to 5,000 entries, read from the store in runs of 200 (each one
 * short query, parsed in one go) and serialized in slices, so one user's large page holds the
 * event loop a slice at a time, not for the whole page. The answer is the one a single read of the
 * page gives: sessions are append-only and positions never move, so runs read one after another
 * are the page as the last run saw the session. Not capped like the whole-session reads: paging is
 * what a client is told to do when those are refused.
 */
export async function entryPageAnswer(
  services: ServerServices,
  owner: string,
  sessionId: string,
  query: { after?: number; limit?: number },
): Promise<Reply> {
  const { after, limit } = normalizeEntryPage(query);
  const slicer = new TimeSlicer();
  // No size bound beyond the page's own: as the page read in one piece was.
  const out = new JsonChunks(slicer, Number.POSITIVE_INFINITY);
  let at = after;
  let nextAfter: number | null = null;
  let first = true;
  await out.raw(`{"entries":[`);
  while (at - after < limit) {
    const ask = Math.min(DEFAULT_PAGE_SIZE, limit - (at - after));
    const run = await services.store.readEntries(owner, sessionId, { after: at, limit: ask });
    for (const entry of run.entries) {
      await out.raw(first ? JSON.stringify(entry) : `,${JSON.stringify(entry)}`);
      first = false;
    }
    at += run.entries.length;
    nextAfter = run.nextAfter;
    if (run.entries.length < ask || nextAfter === null) break;
    await slicer.pause();
  }
  await out.raw(`],"nextAfter":${JSON.stringify(nextAfter)}}`);
  const body = out.size <= STREAM_FROM_BYTES ? out.text() : pieceStream(out.runs(STREAM_FROM_BYTES));
  return { body, contentType: "application/json" };
}
