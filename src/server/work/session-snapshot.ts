import type { SessionEntry } from "../../core/entry.js";
import { isImported } from "../../format/stats.js";
import type { SessionSummary } from "../../store/store.js";
import type { ServerServices } from "../services.js";
import type { ComputeHandle } from "./compute-pool.js";
import type { TimeSlicer } from "./time-slicer.js";

/**
 * A whole session read in pages (the store's `openPages`), each page handed to a compute job as it
 * arrives, giving the event loop back after each page, then the session's head (leaf, cwd, imported) for the job to
 * finish with. Pages go by storage position up to the summary's count, so the answer is the
 * session at the summary's revision, whatever is appended meanwhile; the summary is returned for
 * its revision. `keep` may slim each entry (the tree needs no message text): less to copy to the
 * worker.
 */
export async function feedSession(
  services: ServerServices,
  owner: string,
  sessionId: string,
  job: ComputeHandle,
  slicer: TimeSlicer,
  keep?: (entry: SessionEntry) => SessionEntry,
): Promise<SessionSummary> {
  const { summary, header, pages } = await services.store.openPages(owner, sessionId);
  for await (const page of pages) {
    job.add(keep ? page.map(keep) : page);
    // One page per event-loop turn: on SQLite each page is a synchronous query and its parse.
    await slicer.pause();
  }
  job.endSession({
    sessionId: summary.id,
    cwd: summary.cwd,
    leafId: summary.leafId,
    imported: isImported(header),
  });
  return summary;
}

/**
 * An entry without its payload (`message`, `data`): what the tree view and the labels need (ids,
 * type, time, and the fields core's SessionTree reads: label targets, names, custom types).
 */
export function withoutPayload(entry: SessionEntry): SessionEntry {
  if (!("message" in entry) && !("data" in entry)) return entry;
  const {
    message: _message,
    data: _data,
    ...rest
  } = entry as SessionEntry & { message?: unknown; data?: unknown };
  return rest as SessionEntry;
}
