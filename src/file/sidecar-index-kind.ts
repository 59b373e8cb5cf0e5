import { type ContextRole, contextRole } from "../core/context.js";
import {
  ENTRY_TYPES,
  type EntryType,
  entryTypeInfo,
  isLeafMarker,
  type SessionEntry,
} from "../core/entry.js";
import { ROLE, type RoleCode, sameBytes } from "../format/jsonl/lines.js";

/**
 * An entry's kind in the sidecar index: what the context projection needs to know of an entry
 * without reading it. An entry type's kind is its code in core's registry (`ENTRY_TYPES[type].code`),
 * so a new type needs no edit here; the index adds its own codes for what the type does not say.
 * Kinds are written into saved indexes (sidecar-index-cache.ts): never renumber one.
 */
export const KIND = {
  /** A type sessiontree does not know. */
  other: 0,
  /** A message that is not an assistant's: the registry's code for `message`. */
  message: ENTRY_TYPES.message.code,
  /** An assistant message, which also sets the model. */
  assistant: 2,
  /** sessiontree's leaf marker: a custom entry that says where the leaf is, and nothing else. */
  leafMarker: 11,
  /** A message whose role was not read: it may set the model (an assistant) or not. */
  messageUnknownRole: 12,
} as const;

const OWN_NAMES = new Map<number, string>(Object.entries(KIND).map(([name, code]) => [code, name]));
const TYPE_OF_CODE = new Map<number, EntryType>(
  Object.entries(ENTRY_TYPES).map(([type, info]) => [info.code, type as EntryType]),
);

/** Every registry type but `message` (whose kind is its role's), as bytes beside its code. */
const TYPE_NAMES = Object.keys(ENTRY_TYPES).filter((type) => type !== "message");
const TYPE_BYTES: readonly Buffer[] = TYPE_NAMES.map((type) => Buffer.from(type));
const TYPE_CODES: readonly number[] = TYPE_NAMES.map((type) => ENTRY_TYPES[type as EntryType].code);
const MESSAGE_TYPE = Buffer.from("message");

/**
 * The kind of a line the indexer only scanned, from its type's bytes (`buffer[typeStart, typeEnd)`)
 * and, for a message, the role read from its start (`ROLE.unread` when it was not).
 */
export function kindOfTypeBytes(buffer: Buffer, typeStart: number, typeEnd: number, role: RoleCode): number {
  if (sameBytes(buffer, typeStart, typeEnd, MESSAGE_TYPE)) {
    if (role === ROLE.unread) return KIND.messageUnknownRole;
    return role === ROLE.assistant ? KIND.assistant : KIND.message;
  }
  for (let i = 0; i < TYPE_BYTES.length; i++)
    if (sameBytes(buffer, typeStart, typeEnd, TYPE_BYTES[i] as Buffer)) return TYPE_CODES[i] as number;
  return KIND.other;
}

export function kindOfEntry(entry: SessionEntry): number {
  if (entry.type === "message") return kindOfRole(entry.message.role);
  if (isLeafMarker(entry)) return KIND.leafMarker;
  return entryTypeInfo(entry.type)?.code ?? KIND.other;
}

function kindOfRole(role: string | undefined): number {
  if (role === undefined) return KIND.messageUnknownRole;
  return role === "assistant" ? KIND.assistant : KIND.message;
}

/** A kind's name: the entry type's (`"compaction"`), or the index's own (`"assistant"`, `"leafMarker"`). */
export function kindName(kind: number): string {
  return OWN_NAMES.get(kind) ?? TYPE_OF_CODE.get(kind) ?? "other";
}

/** The entry type of a kind (a leaf marker's is `custom`); "" for a type sessiontree does not know. */
export function typeOfKind(kind: number): string {
  if (kind === KIND.assistant || kind === KIND.messageUnknownRole) return "message";
  if (kind === KIND.leafMarker) return "custom";
  return TYPE_OF_CODE.get(kind) ?? "";
}

/** How the context projection uses an entry of this kind (core's `CONTEXT_ROLES`). */
export function contextRoleOfKind(kind: number): ContextRole {
  return ROLE_OF_KIND[kind] ?? "none";
}

/**
 * Whether the latest entry of this kind on a path sets something the context keeps, whatever came
 * before it: a setting (thinking level, model), or an assistant message (it sets the model too).
 */
export function isSettingKind(kind: number): boolean {
  return kind === KIND.assistant || contextRoleOfKind(kind) === "setting";
}

function roleOf(kind: number): ContextRole {
  if (kind === KIND.assistant || kind === KIND.messageUnknownRole) return "message";
  if (kind === KIND.leafMarker) return "none";
  const type = TYPE_OF_CODE.get(kind);
  return type === undefined ? "none" : contextRole(type);
}

/** By kind (a byte): a resume asks once per entry of a path that may be 100,000 long. */
const ROLE_OF_KIND: readonly ContextRole[] = Array.from({ length: 256 }, (_, kind) => roleOf(kind));
