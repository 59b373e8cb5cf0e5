import { isLeafMarker, type SessionEntry } from "../../core/entry.js";
import { ValidationError } from "../../core/errors.js";
import { checkEntry, isSafeId } from "../../core/validate.js";

export interface BatchOptions {
  /**
   * Accept `custom` entries with the leaf-marker type. Only imports set it: a marker that another
   * writer (pi) built on is history, kept as a normal entry (core's SessionTree un-hides it too).
   * @default false
   */
  allowLeafMarkers?: boolean;
}

/**
 * Checks the shape of an append batch before any storage is touched: each entry passes core's
 * `checkEntry`, its id (and parent id) is a safe id, and no entry is a leaf marker (a database
 * keeps the leaf in a column; `setLeaf` moves it). Each entry's JSON text is captured here (see
 * `entryJson`): every backend stores exactly what JSON keeps (undefined fields dropped), and later
 * changes to the caller's objects cannot reach the store.
 */
export function validateBatch(entries: readonly unknown[], options: BatchOptions = {}): SessionEntry[] {
  if (!Array.isArray(entries)) throw new ValidationError("invalid_argument", "entries must be an array");
  return entries.map((value, index) => {
    const checked = checkEntry(value);
    if (!checked.ok) throw invalidEntry(index, checked.reason);
    const entry = checked.value;
    if (!isSafeId(entry.id))
      throw invalidEntry(index, `id ${JSON.stringify(entry.id)} is not a safe id`, entry.id);
    if (entry.parentId !== null && !isSafeId(entry.parentId)) {
      throw invalidEntry(index, "parentId is not a safe id", entry.id);
    }
    if (!options.allowLeafMarkers && isLeafMarker(entry))
      throw invalidEntry(index, "leaf markers are not stored as entries; use setLeaf", entry.id);
    return capture(entry, index);
  });
}

/** The JSON text of each validated entry, taken once at validation: what a backend stores. */
const jsonText = new WeakMap<SessionEntry, string>();

/**
 * A shallow copy (so the id, parent and type a backend plans with cannot change under it) whose
 * JSON text is captured now. Parsing every entry back would cost more than the database write;
 * backends that keep objects (memory, jsonl) call `detachedEntry` instead.
 */
function capture(entry: SessionEntry, index: number): SessionEntry {
  let text: string;
  try {
    text = JSON.stringify(entry);
  } catch (error) {
    throw invalidEntry(index, `cannot be stored as JSON: ${(error as Error).message}`, entry.id);
  }
  const copy = { ...entry };
  jsonText.set(copy, text);
  return copy;
}

/** A captured copy of a validated entry under another parent (an `underLeaf` append's first entry). */
export function withParent(entry: SessionEntry, parentId: string | null): SessionEntry {
  // Same key order as the caller's entry; the text is captured again, as validateBatch does.
  const copy = { ...entry, parentId };
  jsonText.set(copy, JSON.stringify(copy));
  return copy;
}

/** The stored form of an entry: the text captured by `validateBatch` (or its JSON now). */
export function entryJson(entry: SessionEntry): string {
  return jsonText.get(entry) ?? JSON.stringify(entry);
}

/** A deep, plain-JSON copy of a validated entry, sharing nothing with the caller's objects. */
export function detachedEntry(entry: SessionEntry): SessionEntry {
  return JSON.parse(entryJson(entry)) as SessionEntry;
}

function invalidEntry(index: number, reason: string, id?: string): ValidationError {
  return new ValidationError("invalid_entry", `Entry ${index}: ${reason}`, { details: { index, id } });
}
