import {
  type EntryType,
  isKnownEntryType,
  isLeafMarker,
  type SessionEntry,
  type SessionHeader,
} from "./entry.js";

/** The result of checking a parsed JSON value: the typed value, or why it was refused. */
export type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isString = (v: unknown): v is string => typeof v === "string";
const isOptionalString = (v: unknown) => v === undefined || v === null || typeof v === "string";

/**
 * Field checks per known entry type, beyond the fields every entry has; each returns the first
 * problem found, or undefined. Read from a file, an entry that fails them is kept as *malformed*
 * (see `checkEntryRead`); written through an API, it is refused (`checkEntry`).
 */
const ENTRY_RULES: Record<EntryType, (e: Json) => string | undefined> = {
  message: (e) => {
    if (!isObject(e.message)) return "message must be an object";
    if (!isString(e.message.role)) return "message.role must be a string";
    return undefined;
  },
  thinking_level_change: (e) => (isString(e.thinkingLevel) ? undefined : "thinkingLevel must be a string"),
  model_change: (e) =>
    isString(e.provider) && isString(e.modelId) ? undefined : "provider and modelId must be strings",
  compaction: (e) => {
    if (!isString(e.summary)) return "summary must be a string";
    // pi writes a compaction without one when it migrates a v1 file whose kept index it cannot
    // place: such a compaction keeps nothing from before it (context.ts).
    if (!isOptionalString(e.firstKeptEntryId)) return "firstKeptEntryId must be a string";
    // Shown, never used: pi reads a compaction without it (some writers name it otherwise), and
    // with null, what JSON writes for NaN or Infinity (pi's appendCompaction, and ours, write that).
    if (e.tokensBefore != null && typeof e.tokensBefore !== "number") return "tokensBefore must be a number";
    return undefined;
  },
  branch_summary: (e) =>
    isString(e.fromId) && isString(e.summary) ? undefined : "fromId and summary must be strings",
  custom: (e) => (isString(e.customType) ? undefined : "customType must be a string"),
  custom_message: (e) => {
    if (!isString(e.customType)) return "customType must be a string";
    if (!isString(e.content) && !Array.isArray(e.content)) return "content must be a string or an array";
    return undefined;
  },
  label: (e) =>
    isString(e.targetId) && isOptionalString(e.label)
      ? undefined
      : "targetId must be a string, label a string",
  session_info: (e) => (isOptionalString(e.name) ? undefined : "name must be a string"),
};

/**
 * Checks a session header (line 1) as pi does: a JSON object of type "session" whose id is a
 * string (pi opens a file with an empty one). Its version is read by `headerVersion`, whatever it
 * holds; unknown fields are allowed and kept.
 */
export function checkHeader(value: unknown): Checked<SessionHeader> {
  if (!isObject(value)) return { ok: false, reason: "header is not a JSON object" };
  if (value.type !== "session") return { ok: false, reason: 'header type is not "session"' };
  if (!isString(value.id)) return { ok: false, reason: "header id must be a string" };
  return { ok: true, value: value as SessionHeader };
}

/**
 * Checks one entry after migration, as an API that takes entries must: the fields every entry has
 * (type, id, parent, timestamp), and a known type's own fields with the right types. Unknown types
 * need only the common fields and are kept untouched.
 */
export function checkEntry(value: unknown): Checked<SessionEntry> {
  const problem = commonProblem(value);
  if (problem !== undefined) return { ok: false, reason: problem };
  const malformed = fieldProblem(value as Json);
  if (malformed !== undefined) return { ok: false, reason: malformed };
  return { ok: true, value: value as SessionEntry };
}

/** `checkEntryRead`'s answer: an entry kept may be `malformed` (the problem with its own fields). */
export type CheckedRead =
  | { ok: true; value: SessionEntry; malformed?: string }
  | { ok: false; reason: string };

/**
 * `checkEntry` for a line read from a session file, which pi's reading decides. pi keeps every
 * line that parses, so an entry with a type, an id and a parent is an entry of the session whatever
 * else it holds: refusing it would cut every entry after it from its history. One with no string
 * timestamp, or whose known type's fields are missing or wrong (a writer that names them
 * otherwise), is `malformed`: it holds its place in the tree, nothing is derived from it
 * (`isWellFormed`) but, for a message with a role, its message (`hasRole`), and readers report it.
 * An entry with no parentId at all is a root (some writers leave a null parent out); it is held as
 * null, so every reader of the entry sees the one form.
 */
export function checkEntryRead(value: unknown): CheckedRead {
  if (isObject(value) && value.parentId === undefined && value.type !== "session") value.parentId = null;
  const problem = commonProblem(value);
  if (problem !== undefined) return { ok: false, reason: problem };
  // Every reader of a message entry reads its message: without one, there is no entry to keep.
  if ((value as Json).type === "message" && !isObject((value as Json).message))
    return { ok: false, reason: "message: message must be an object" };
  const entry = value as SessionEntry;
  const malformed = fieldProblem(value as Json);
  return malformed === undefined ? { ok: true, value: entry } : { ok: true, value: entry, malformed };
}

/**
 * Whether a message entry's message has a role: what makes it reach the model (context.ts), as in
 * pi, whatever else is wrong with the entry. It runs for every message of a path.
 */
export function hasRole(message: unknown): boolean {
  return isObject(message) && isString(message.role);
}

/** What a reader says of a malformed entry it kept (after the line it names). */
export function malformedNote(entry: SessionEntry, malformed: string): string {
  const used = entry.type === "message" && hasRole((entry as { message?: unknown }).message);
  const taken = used
    ? "its message goes to the context, nothing else is taken from it"
    : "nothing is taken from it";
  return `entry ${entry.id} kept, but ${taken}: ${malformed}`;
}

/**
 * Whether an entry has its timestamp, and a known type its own fields with the right types: what
 * the context, labels, the name and descriptions require before they use an entry. Only a file
 * read can hand out one that is not (`checkEntryRead`).
 */
export function isWellFormed(entry: SessionEntry): boolean {
  return fieldProblem(entry as unknown as Json) === undefined;
}

/**
 * Whether `held`, an entry of a file, gives way to `later`, a second entry with its id further on:
 * when `held` is malformed and `later` a well-formed copy of the same type under the same parent.
 * Damage to a field's name makes a malformed line too, and a damaged copy must not hide the intact
 * copy of the entry written again further on (the first entry of an id wins otherwise).
 */
export function givesWayTo(held: SessionEntry, later: SessionEntry): boolean {
  return (
    held.type === later.type &&
    held.parentId === later.parentId &&
    !isLeafMarker(later) &&
    !isWellFormed(held) &&
    isWellFormed(later)
  );
}

/** What places an entry in its session's tree: a type, an id, a parent (or null). */
function commonProblem(value: unknown): string | undefined {
  if (!isObject(value)) return "entry is not a JSON object";
  if (!isString(value.type) || value.type.length === 0) return "type must be a string";
  if (value.type === "session") return "a second session header";
  if (!isString(value.id) || value.id.length === 0) return "id must be a non-empty string";
  if (value.parentId !== null && !isString(value.parentId)) return "parentId must be a string or null";
  return undefined;
}

/**
 * The rest of what an entry must hold, prefixed with the type for a known type's own fields;
 * undefined if nothing is wrong. Every entry has a timestamp: one without (pi keeps it, and its
 * children) is malformed like one whose own fields are wrong.
 */
function fieldProblem(entry: Json): string | undefined {
  if (!isString(entry.timestamp)) return "timestamp must be a string";
  const type = entry.type as string;
  if (!isKnownEntryType(type)) return undefined;
  const problem = ENTRY_RULES[type](entry);
  return problem === undefined ? undefined : `${type}: ${problem}`;
}

/**
 * Entry ids must be safe to use as names anywhere (URLs, file names, SQL parameters are fine
 * anyway): no path separators, no control characters, at most 128 characters.
 */
export function isSafeId(id: string): boolean {
  return id.length > 0 && id.length <= 128 && /^[A-Za-z0-9._:-]+$/.test(id) && id !== "." && id !== "..";
}

/**
 * What makes a parsed JSON value unfit to store, if anything: containers (objects, arrays) nested
 * more than `maxLevels` deep (`{}` is one level, `{"a":[1]}` two), or a number JSON cannot write
 * back (`1e309` parses as Infinity, which JSON.stringify would store as null). Iterative, so
 * checking a hostile value cannot itself overflow the stack.
 */
export function jsonShapeProblem(value: unknown, maxLevels: number): "too_deep" | "not_finite" | null {
  const stack: Array<[unknown, number]> = [[value, 1]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [current, level] = item;
    if (typeof current === "number" && !Number.isFinite(current)) return "not_finite";
    if (typeof current !== "object" || current === null) continue;
    if (level > maxLevels) return "too_deep";
    for (const child of Object.values(current)) {
      if (typeof child === "number" || (typeof child === "object" && child !== null)) {
        stack.push([child, level + 1]);
      }
    }
  }
  return null;
}
