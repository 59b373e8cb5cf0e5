import type { SessionEntry, SessionHeader } from "../../core/entry.js";
import { SessionTree } from "../../core/tree.js";
import type { SessionSummary } from "../../store/store.js";
import type { ServerServices } from "../services.js";
import type { TimeSlicer } from "./time-slicer.js";

export interface SessionSnapshot {
  summary: SessionSummary;
  header: SessionHeader;
  /** Every entry in storage order, as of `summary.revision`. */
  entries: SessionEntry[];
  tree: SessionTree;
}

/**
 * A whole session read in pages (the store's `openPages`), yielding between them, instead of one
 * `loadSession` that parses every entry in one synchronous stretch. Pages go by storage position
 * up to the summary's count, so the answer is the session at the summary's revision, whatever is
 * appended meanwhile, and carries that revision. `keep` may slim each entry as it arrives (the
 * tree needs no message text), so what is not needed dies young instead of burdening the old
 * generation's garbage collection.
 */
export async function readSnapshot(
  services: ServerServices,
  owner: string,
  sessionId: string,
  slicer: TimeSlicer,
  keep: (entry: SessionEntry) => SessionEntry = (entry) => entry,
): Promise<SessionSnapshot> {
  const { summary, header, pages } = await services.store.openPages(owner, sessionId);
  const entries: SessionEntry[] = [];
  const tree = new SessionTree();
  for await (const page of pages) {
    for (const read of page) {
      const entry = keep(read);
      entries.push(entry);
      tree.load(entry);
      if (slicer.due()) await slicer.pause();
    }
    await slicer.breathe();
  }
  // Loading leaves the tree at the last entry; the session's leaf is the store's.
  tree.restoreLeaf(summary.leafId);
  return { summary, header, entries, tree };
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
