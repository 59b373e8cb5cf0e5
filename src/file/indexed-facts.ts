import { ENTRY_TYPES, type LabelEntry, type SessionInfoEntry } from "../core/entry.js";
import type { IndexedReader } from "./indexed-reader.js";
import type { SessionIndex } from "./sidecar-index-model.js";

/**
 * Whether a session file can be drawn from its sidecar index as a whole read would draw it: the
 * index covers every byte of the file (`size`), its indexer met no problem, every line is an entry
 * it holds (no blank or repeated line), every parent is an entry that comes before its child (none
 * missing, none later). Lines the indexer only scanned are checked when they are read
 * (`IndexedReader`); `fsck` checks all of them.
 */
export function drawableFromIndex(index: SessionIndex, size: number): boolean {
  if (index.issues.length > 0 || size !== index.indexedBytes) return false;
  if (index.indexedLines !== index.ids.count + 1 || Object.keys(index.dangling).length > 0) return false;
  for (let n = 0; n < index.ids.count; n++) {
    if ((index.parents[n] as number) >= n) return false;
  }
  return true;
}

/** The session-wide facts a few lines hold: the name and the labels. */
export interface IndexedFacts {
  /** The latest `session_info`'s name, trimmed; undefined when unnamed. */
  name: string | undefined;
  /** Target id → label, as core's tree resolves them. */
  labels: Map<string, string>;
}

/**
 * Reads the name and the labels of an indexed session from their lines alone, with `also` (entry
 * numbers the caller needs too) in the same reads; null when a line is not what the index says.
 */
export function readIndexedFacts(reader: IndexedReader, also: readonly number[] = []): IndexedFacts | null {
  const index = reader.index;
  const labelLines = numbersOfKind(index, ENTRY_TYPES.label.code);
  const nameLines = numbersOfKind(index, ENTRY_TYPES.session_info.code).slice(-1);
  if (reader.entries([...labelLines, ...nameLines, ...also]) === null) return null;
  // As core's tree resolves them: a label replaces the target's (in place), an empty one clears it.
  const labels = new Map<string, string>();
  for (const n of labelLines) {
    const { targetId, label } = reader.entry(n) as LabelEntry;
    if (label) labels.set(targetId, label);
    else labels.delete(targetId);
  }
  const named =
    nameLines.length === 0 ? undefined : (reader.entry(nameLines[0] as number) as SessionInfoEntry);
  return { name: named?.name?.trim() || undefined, labels };
}

/** The entry numbers of every entry of this kind, in file order. */
export function numbersOfKind(index: SessionIndex, kind: number): number[] {
  const numbers: number[] = [];
  for (let n = 0; n < index.ids.count; n++) if (index.kinds[n] === kind) numbers.push(n);
  return numbers;
}
