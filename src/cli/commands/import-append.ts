import { isLeafMarker, type SessionEntry } from "../../core/entry.js";
import type { SessionTree } from "../../core/tree.js";
import { SessionFile } from "../../file/session-file.js";
import type { Converted } from "./import-convert.js";

/** What a re-import of a session already there did. */
export type AppendOutcome =
  /** New entries of the source (it grew) were appended; `renamed` when its name changed too. */
  | { status: "appended"; appended: number; renamed: boolean }
  /** Every entry of the source is there already, under the same name. */
  | { status: "unchanged" }
  /** None of the source's entries is there by id: not the same history (or ids that change per read). */
  | { status: "ids_changed" };

/**
 * Appends to the session at `path` the entries of `converted` it does not hold yet. Imported ids
 * are stable (Claude's uuids, Codex's line numbers, pi's own ids), so a source that grew yields
 * the same entries plus new ones: only those are written, after the file's own (append-only, under
 * the file's lock). Entries the import made up (name, leaf marker) are made again here as needed:
 * a new name when the source's changed, a marker when the last line written is not the leaf.
 */
export function appendNewEntries(path: string, converted: Converted): AppendOutcome {
  const derived = new Set(converted.derivedIds);
  const source = converted.entries.filter((e) => !derived.has(e.id) && !isLeafMarker(e));
  const file = SessionFile.open(path);
  let outcome: AppendOutcome = { status: "unchanged" };
  try {
    file.write((tree) => {
      const fresh = source.filter((e) => !tree.hasId(e.id));
      if (fresh.length > 0 && fresh.length === source.length && tree.size > 0) {
        outcome = { status: "ids_changed" };
        return [];
      }
      const written = appendInOrder(tree, fresh, converted);
      outcome =
        written.length === 0
          ? { status: "unchanged" }
          : { status: "appended", appended: fresh.length, renamed: written.some(isNameEntry(fresh)) };
      return written;
    });
  } finally {
    file.close();
  }
  return outcome;
}

/** Loads the fresh entries, then the name and the leaf marker they call for; returns all to write. */
function appendInOrder(tree: SessionTree, fresh: SessionEntry[], converted: Converted): SessionEntry[] {
  const written: SessionEntry[] = [];
  for (const entry of fresh) {
    tree.load(entry);
    written.push(entry);
  }
  const leaf =
    converted.leafId !== null && tree.hasId(converted.leafId) ? converted.leafId : tree.getLeafId();
  if (converted.name !== undefined && converted.name !== tree.getSessionName()) {
    if (leaf === null) tree.resetLeaf();
    else tree.branch(leaf);
    written.push(tree.append({ type: "session_info", name: converted.name }));
  }
  if (written.length === 0 || leaf === null) return written;
  tree.branch(leaf);
  if (written[written.length - 1]?.id !== leaf) written.push(tree.markLeaf());
  return written;
}

/** A `session_info` entry the append made (not one of the source's). */
function isNameEntry(fresh: readonly SessionEntry[]) {
  const ids = new Set(fresh.map((e) => e.id));
  return (entry: SessionEntry) => entry.type === "session_info" && !ids.has(entry.id);
}
