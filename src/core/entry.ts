import type { AppendableMessage, ImageContent, TextContent } from "./messages.js";

/** The session format version sessiontree writes (pi's current one). */
export const CURRENT_SESSION_VERSION = 3;

/**
 * The format version a header gives, read as pi reads it (`header.version ?? 1`, then compared with
 * numbers): absent or null is 1, any other value counts as the number it converts to (a string
 * `"3"` is 3, `""` is 0). A value that is no number at all (`"v3"`) migrates nothing in pi, so it
 * reads as the current version. Every reader of a header's version goes through here.
 */
export function headerVersion(header: { version?: unknown }): number {
  const version = Number(header.version ?? 1);
  return Number.isNaN(version) ? CURRENT_SESSION_VERSION : version;
}

/** Line 1 of every session file. Unknown fields are kept. */
export interface SessionHeader {
  type: "session";
  /** A number in the files pi writes; other writers' values are read with `headerVersion`. */
  version?: unknown;
  id: string;
  timestamp: string;
  cwd: string;
  parentSession?: string;
  [key: string]: unknown;
}

export interface SessionEntryBase {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: string;
}

export interface SessionMessageEntry extends SessionEntryBase {
  type: "message";
  message: AppendableMessage;
}

export interface ThinkingLevelChangeEntry extends SessionEntryBase {
  type: "thinking_level_change";
  thinkingLevel: string;
}

export interface ModelChangeEntry extends SessionEntryBase {
  type: "model_change";
  provider: string;
  modelId: string;
}

export interface CompactionEntry<T = unknown> extends SessionEntryBase {
  type: "compaction";
  summary: string;
  /**
   * Where the kept entries start. Typed as pi types it; pi itself leaves it out when it migrates a
   * v1 file whose kept index is out of range, and such a compaction keeps nothing from before it.
   */
  firstKeptEntryId: string;
  tokensBefore: number;
  details?: T;
  fromHook?: boolean;
}

export interface BranchSummaryEntry<T = unknown> extends SessionEntryBase {
  type: "branch_summary";
  fromId: string;
  summary: string;
  details?: T;
  fromHook?: boolean;
}

/** Extension state: never part of the model's context. */
export interface CustomEntry<T = unknown> extends SessionEntryBase {
  type: "custom";
  customType: string;
  data?: T;
}

/** An extension's message that does reach the model (as role `custom`). */
export interface CustomMessageEntry<T = unknown> extends SessionEntryBase {
  type: "custom_message";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  details?: T;
  display: boolean;
}

export interface LabelEntry extends SessionEntryBase {
  type: "label";
  targetId: string;
  label: string | undefined;
}

export interface SessionInfoEntry extends SessionEntryBase {
  type: "session_info";
  name?: string;
}

/** Every entry type pi v3 knows (see `ENTRY_TYPES` for what each one does). */
export type SessionEntry =
  | SessionMessageEntry
  | ThinkingLevelChangeEntry
  | ModelChangeEntry
  | CompactionEntry
  | BranchSummaryEntry
  | CustomEntry
  | CustomMessageEntry
  | LabelEntry
  | SessionInfoEntry;

export type EntryType = SessionEntry["type"];

export interface EntryTypeInfo {
  /**
   * A small stable number for the type, written into sidecar indexes (`<file>.idx`): never reuse or
   * renumber one, add new types at the end. 1, 2, 11 and 12 are taken by the index for user and
   * assistant messages, leaf markers and messages of an unread role; 0 is "unknown type".
   */
  readonly code: number;
  /**
   * An append of this type only extends the leaf's path: a session resumed through the sidecar
   * index may write it without reading the whole file. Types that look elsewhere in the tree (a
   * compaction's kept entry, a label's target, a branch summary's origin) need the whole read.
   */
  readonly extendsPathOnly: boolean;
}

/**
 * The one table of entry types: adding a type to `SessionEntry` makes the compiler ask for its row
 * here, for its field checks (core/validate.ts), its role in the projection (`CONTEXT_ROLES` in
 * core/context.ts) and
 * its one-line description (format/describe.ts). Entries of other types are read, kept in the tree
 * and written back untouched; they are typed as the union at runtime only (as in pi), so check
 * `isKnownEntryType`.
 */
export const ENTRY_TYPES: { readonly [T in EntryType]: EntryTypeInfo } = {
  message: { code: 1, extendsPathOnly: true },
  thinking_level_change: { code: 3, extendsPathOnly: true },
  model_change: { code: 4, extendsPathOnly: true },
  compaction: { code: 5, extendsPathOnly: false },
  branch_summary: { code: 6, extendsPathOnly: false },
  custom: { code: 7, extendsPathOnly: true },
  custom_message: { code: 8, extendsPathOnly: true },
  label: { code: 9, extendsPathOnly: false },
  session_info: { code: 10, extendsPathOnly: true },
};

export function isKnownEntryType(type: string): type is EntryType {
  return Object.hasOwn(ENTRY_TYPES, type);
}

/** The registry row of a type, undefined for a type sessiontree does not know. */
export function entryTypeInfo(type: string): EntryTypeInfo | undefined {
  return isKnownEntryType(type) ? ENTRY_TYPES[type] : undefined;
}

/** Fails to compile when a switch over a union misses a member; at run time, names what it got. */
export function assertNever(value: never, what = "value"): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}

/** The fields `append` fills in; callers give the rest. */
export type EntryDraft<E extends SessionEntry = SessionEntry> = E extends SessionEntry
  ? Omit<E, "id" | "parentId" | "timestamp">
  : never;

/**
 * sessiontree's leaf marker: a `custom` entry hung under the entry the leaf was moved to, written when
 * a file-backed session rewinds with no append after it. pi takes the last line as its leaf, so pi
 * lands on the marker and builds the same context (custom entries are not context); sessiontree reads
 * the marker as "the leaf is my parent" and keeps it out of the entry list, so the API looks like pi's.
 */
export const LEAF_MARKER_TYPE = "sessiontree.leaf";

export function isLeafMarker(entry: SessionEntryBase): boolean {
  return entry.type === "custom" && (entry as CustomEntry).customType === LEAF_MARKER_TYPE;
}
