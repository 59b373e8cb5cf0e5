import type { SessionEntry } from "../../core/entry.js";
import { SessionTree } from "../../core/tree.js";
import type { SessionSummary } from "../../store/store.js";
import type { ServerServices } from "../services.js";
import type { TimeSlicer } from "./time-slicer.js";

/** Entries per store read: a page is parsed in one go, so it stays a few milliseconds long. */
const PAGE = 200;

export interface SessionSnapshot {
  summary: SessionSummary;
  /** Every entry in storage order, as of `summary.revision`. */
  entries: SessionEntry[];
  tree: SessionTree;
}

/**
 * A whole session read in pages, yielding between them, instead of one `loadSession` that parses
 * every entry in one synchronous stretch. Sessions are append-only and pages go by storage
 * position, so the first `entryCount` positions are exactly the session at the summary's revision,
 * whatever is appended meanwhile: the answer is as consistent as one read, and carries that revision.
 * `keep` may slim each entry as it arrives (the tree needs no message text), so what is not needed
 * dies young instead of burdening the old generation's garbage collection.
 */
export async function readSnapshot(
  services: ServerServices,
  owner: string,
  sessionId: string,
  slicer: TimeSlicer,
  keep: (entry: SessionEntry) => SessionEntry = (entry) => entry,
): Promise<SessionSnapshot> {
  const summary = await services.store.getSummary(owner, sessionId);
  const entries: SessionEntry[] = [];
  const tree = new SessionTree();
  while (entries.length < summary.entryCount) {
    const limit = Math.min(PAGE, summary.entryCount - entries.length);
    const page = await services.store.readEntries(owner, sessionId, { after: entries.length, limit });
    if (page.entries.length === 0) break;
    for (const read of page.entries) {
      const entry = keep(read);
      entries.push(entry);
      tree.load(entry);
      if (slicer.due()) await slicer.pause();
    }
    await slicer.breathe();
  }
  return { summary, entries, tree };
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
