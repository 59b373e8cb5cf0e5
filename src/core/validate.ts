import { type EntryType, isKnownEntryType, type SessionEntry, type SessionHeader } from "./entry.js";

/** The result of checking a parsed JSON value: the typed value, or why it was refused. */
export type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isString = (v: unknown): v is string => typeof v === "string";
const isOptionalString = (v: unknown) => v === undefined || v === null || typeof v === "string";

/** Field checks per known entry type; each returns the first problem found, or undefined. */
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
    if (typeof e.tokensBefore !== "number") return "tokensBefore must be a number";
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

/** Checks a session header (line 1). Unknown fields are allowed and kept. */
export function checkHeader(value: unknown): Checked<SessionHeader> {
  if (!isObject(value)) return { ok: false, reason: "header is not a JSON object" };
  if (value.type !== "session") return { ok: false, reason: 'header type is not "session"' };
  if (!isString(value.id) || value.id.length === 0)
    return { ok: false, reason: "header id must be a string" };
  if (value.version !== undefined && typeof value.version !== "number") {
    return { ok: false, reason: "header version must be a number" };
  }
  return { ok: true, value: value as SessionHeader };
}

/**
 * Checks one entry after migration. Known types must carry their fields with the right types;
 * unknown types need only the common fields and are kept untouched.
 */
export function checkEntry(value: unknown): Checked<SessionEntry> {
  if (!isObject(value)) return { ok: false, reason: "entry is not a JSON object" };
  if (!isString(value.type) || value.type.length === 0) return { ok: false, reason: "type must be a string" };
  if (value.type === "session") return { ok: false, reason: "a second session header" };
  if (!isString(value.id) || value.id.length === 0)
    return { ok: false, reason: "id must be a non-empty string" };
  if (value.parentId !== null && !isString(value.parentId)) {
    return { ok: false, reason: "parentId must be a string or null" };
  }
  if (!isString(value.timestamp)) return { ok: false, reason: "timestamp must be a string" };
  if (isKnownEntryType(value.type)) {
    const problem = ENTRY_RULES[value.type](value);
    if (problem) return { ok: false, reason: `${value.type}: ${problem}` };
  }
  return { ok: true, value: value as unknown as SessionEntry };
}

/**
 * `checkEntry` for a line read from a session file, which pi's reading decides: an entry with no
 * parentId at all is a root (some writers leave a null parent out). It is held as null, so every
 * reader of the entry sees the one form; an API that takes entries keeps asking for the field.
 */
export function checkEntryRead(value: unknown): Checked<SessionEntry> {
  if (isObject(value) && value.parentId === undefined && value.type !== "session") value.parentId = null;
  return checkEntry(value);
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
