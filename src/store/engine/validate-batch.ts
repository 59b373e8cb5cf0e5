import { isLeafMarker, type SessionEntry, type SessionHeader } from "../../core/entry.js";
import { ValidationError } from "../../core/errors.js";
import { checkEntry, checkEntryRead, isSafeId, jsonShapeProblem } from "../../core/validate.js";

/**
 * What one entry may be, on every path that stores one (append, import, and through them every
 * route and command): its JSON at most `maxBytes` of UTF-8, its objects and arrays at most
 * `maxDepth` levels deep (the entry itself is level 1). Deeper values would reach recursive code
 * further on (JSON.stringify, clients); larger ones would make every read of the session pay.
 */
export const ENTRY_LIMITS = Object.freeze({ maxBytes: 2 * 1024 * 1024, maxDepth: 64 });

export interface BatchOptions {
  /**
   * The entries are existing history: a file's, imported or pushed by `sessiontree sync` (which
   * sends a leaf marker only with an entry under it). Each is checked as a file read checks it
   * (`checkEntryRead`: its timestamp or a known type's own fields may be malformed, as pi keeps
   * them; refusing one would cut what follows it from the copy), and a leaf marker another writer
   * (pi) built on is kept as a normal entry (core's SessionTree un-hides it).
   * @default false: a client's new entries pass `checkEntry`; leaf markers are refused.
   */
  history?: boolean;
}

/**
 * Checks the shape of an append batch before any storage is touched: each entry passes core's
 * `checkEntry` (`checkEntryRead` for `history`), its id (and parent id) is a safe id, and no entry
 * is a leaf marker unless it is history (a database keeps the leaf in a column; `setLeaf` moves it). Each entry's JSON text is captured here (see
 * `entryJson`): every backend stores exactly what JSON keeps (undefined fields dropped), and later
 * changes to the caller's objects cannot reach the store.
 */
export function validateBatch(entries: readonly unknown[], options: BatchOptions = {}): SessionEntry[] {
  if (!Array.isArray(entries)) throw new ValidationError("invalid_argument", "entries must be an array");
  return entries.map((value, index) => {
    const checked = options.history ? checkEntryRead(value) : checkEntry(value);
    if (!checked.ok) throw invalidEntry(index, checked.reason);
    const entry = checked.value;
    if (!isSafeId(entry.id))
      throw invalidEntry(index, `id ${JSON.stringify(entry.id)} is not a safe id`, entry.id);
    if (entry.parentId !== null && !isSafeId(entry.parentId)) {
      throw invalidEntry(index, "parentId is not a safe id", entry.id);
    }
    // PostgreSQL's text columns cannot hold NUL and SQLite's can: one rule for every backend.
    if (entry.type.includes("\u0000")) throw invalidEntry(index, "type contains a NUL character", entry.id);
    if (!options.history && isLeafMarker(entry))
      throw invalidEntry(index, "leaf markers are not stored as entries; use setLeaf", entry.id);
    checkShape(entry, index);
    return capture(entry, index);
  });
}

/**
 * The same limits for a session header (line 1 of an imported file keeps any fields it had): it is
 * stored as JSON beside the entries and sent back with every export.
 */
export function checkHeaderLimits(header: SessionHeader): void {
  const problem = jsonShapeProblem(header, ENTRY_LIMITS.maxDepth);
  const where = { details: { line: 1, maxDepth: ENTRY_LIMITS.maxDepth, maxBytes: ENTRY_LIMITS.maxBytes } };
  if (problem === "too_deep") {
    throw new ValidationError(
      "entry_too_deep",
      `The header is nested deeper than ${ENTRY_LIMITS.maxDepth} levels`,
      where,
    );
  }
  if (problem === "not_finite") {
    throw new ValidationError("invalid_entry", "The header holds a number JSON cannot represent", where);
  }
  if (Buffer.byteLength(JSON.stringify(header)) > ENTRY_LIMITS.maxBytes) {
    throw new ValidationError(
      "entry_too_large",
      `The header is larger than ${ENTRY_LIMITS.maxBytes} bytes`,
      where,
    );
  }
}

/** Refuses an entry nested too deep, or holding a number JSON would store as null (Infinity, NaN). */
function checkShape(entry: SessionEntry, index: number): void {
  const problem = jsonShapeProblem(entry, ENTRY_LIMITS.maxDepth);
  if (problem === "too_deep") {
    throw new ValidationError(
      "entry_too_deep",
      `Entry ${index}: nested deeper than ${ENTRY_LIMITS.maxDepth} levels`,
      {
        details: { index, id: entry.id, maxDepth: ENTRY_LIMITS.maxDepth },
      },
    );
  }
  if (problem === "not_finite") {
    throw invalidEntry(index, "holds a number JSON cannot represent (it overflows to Infinity)", entry.id);
  }
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
  if (text.length > ENTRY_LIMITS.maxBytes / 3 && Buffer.byteLength(text) > ENTRY_LIMITS.maxBytes) {
    throw new ValidationError(
      "entry_too_large",
      `Entry ${index}: larger than ${ENTRY_LIMITS.maxBytes} bytes as JSON`,
      { details: { index, id: entry.id, maxBytes: ENTRY_LIMITS.maxBytes } },
    );
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
