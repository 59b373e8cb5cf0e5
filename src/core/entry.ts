import type { AppendableMessage, ImageContent, TextContent } from "./messages.js";

/** The session format version sessiontree writes (pi's current one). */
export const CURRENT_SESSION_VERSION = 3;

/** Line 1 of every session file. Unknown fields are kept. */
export interface SessionHeader {
  type: "session";
  version?: number;
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

/**
 * Every entry type pi v3 knows. Entries of other types are read, kept in the tree and written back
 * untouched; they are typed as this union at runtime only (as in pi), so check `isKnownEntryType`.
 */
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

export type FileEntry = SessionHeader | SessionEntry;

export type EntryType = SessionEntry["type"];

export const KNOWN_ENTRY_TYPES: ReadonlySet<string> = new Set<EntryType>([
  "message",
  "thinking_level_change",
  "model_change",
  "compaction",
  "branch_summary",
  "custom",
  "custom_message",
  "label",
  "session_info",
]);

export function isKnownEntryType(type: string): type is EntryType {
  return KNOWN_ENTRY_TYPES.has(type);
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
