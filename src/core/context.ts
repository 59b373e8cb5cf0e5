import type {
  BranchSummaryEntry,
  CompactionEntry,
  CustomEntry,
  CustomMessageEntry,
  EntryType,
  SessionEntry,
  SessionMessageEntry,
} from "./entry.js";
import { LEAF_MARKER_TYPE } from "./entry.js";
import type { SessionIssue } from "./issues.js";
import type { AgentMessage, AssistantMessage, CustomMessage } from "./messages.js";
import { hasRole, isWellFormed } from "./validate.js";

/** How the context projection (core/context.ts) uses an entry of a type when it lies on the path. */
export type ContextRole =
  /** Reaches the model as a message (a branch summary only when it has text). */
  | "message"
  /** Sets the thinking level or the model in force. */
  | "setting"
  /** Replaces what came before it with its summary (and the kept range). */
  | "compaction"
  /** Extension state (`extensionState`), never a message. */
  | "extension"
  /** Metadata the projection skips: labels, the session name. */
  | "none";

/**
 * Which entries of a path the projection reads, by type: the table `readPath` follows, and the one a
 * reader that loads only part of a file (the sidecar-index resume) picks its lines by.
 */
export const CONTEXT_ROLES: { readonly [T in EntryType]: ContextRole } = {
  message: "message",
  custom_message: "message",
  branch_summary: "message",
  thinking_level_change: "setting",
  model_change: "setting",
  compaction: "compaction",
  custom: "extension",
  label: "none",
  session_info: "none",
};

/** The role of an entry type in the projection; an unknown type is skipped ("none"), as pi does. */
export function contextRole(type: string): ContextRole {
  return Object.hasOwn(CONTEXT_ROLES, type) ? CONTEXT_ROLES[type as EntryType] : "none";
}

export interface ModelRef {
  provider: string;
  modelId: string;
}

/** What the model sees from one point of the tree: pi's `SessionContext`. */
export interface SessionContext {
  messages: AgentMessage[];
  thinkingLevel: string;
  model: ModelRef | null;
}

/** The projection with what pi leaves out: extension state and the problems met on the way. */
export interface ProjectedContext extends SessionContext {
  /** Latest `custom` entry data on the path, by `customType`, so a resumed extension gets its state. */
  extensionState: Record<string, unknown>;
  /** The compaction in force, if any: its entry id and the first entry it kept. */
  compaction: { entryId: string; firstKeptEntryId: string; keptFound: boolean } | null;
  /** The ids of the entries that produced `messages`, one per message (the summary: the compaction). */
  messageEntryIds: string[];
  warnings: SessionIssue[];
}

/**
 * A root→leaf path as positions into a list of entries: entry i of the path is
 * `entries[slots[i]]`. `SessionTree.getBranchSlots` hands a branch out this way, so projecting a
 * long branch does not first copy every entry into a new array.
 */
export interface SlotPath {
  readonly entries: readonly SessionEntry[];
  readonly slots: Int32Array;
}

/**
 * Projects a root→leaf path into the model's context, exactly as pi's `buildSessionContext`:
 * thinking level and model from the path (an assistant message sets the model too), the last
 * compaction's summary first, then the kept entries before it from `firstKeptEntryId`, then
 * everything after it. Only messages, custom messages and non-empty branch summaries become messages.
 */
export function projectContext(path: readonly SessionEntry[] | SlotPath): ProjectedContext {
  const view = viewOf(path);
  const found = readPath(view);
  const warnings: SessionIssue[] = [];
  let compaction: ProjectedContext["compaction"] = null;
  let out = found.messagesSinceCompaction;
  // Without a compaction (or its kept entry), the kept range is empty.
  let keptFrom = found.compactionIndex;
  if (found.compactionIndex >= 0) {
    const entry = entryAt(view, found.compactionIndex) as CompactionEntry;
    const keptIndex = indexOfId(view, entry.firstKeptEntryId, found.compactionIndex);
    compaction = { entryId: entry.id, firstKeptEntryId: entry.firstKeptEntryId, keptFound: keptIndex >= 0 };
    if (keptIndex < 0) warnings.push(keptRangeMissing(entry));
    else keptFrom = keptIndex;
    out = compactedMessages(view, found.compactionIndex, keptFrom, out);
  }
  out.finish();
  const context: ProjectedContext = {
    messages: out.messages,
    thinkingLevel: found.thinkingLevel,
    model: modelOf(found.modelSource),
    extensionState: found.extensionState,
    compaction,
    messageEntryIds: [],
    warnings,
  };
  const compactionIndex = found.compactionIndex; // not `found`: it holds the collector's arrays
  const idsOf = () => messageIdsOf(view, compactionIndex, keptFrom);
  if (view.slots === null) context.messageEntryIds = idsOf();
  else defineLazily(context, "messageEntryIds", idsOf);
  return context;
}

/**
 * The ids behind the messages, by the same rule and in the same order as the messages: the
 * compaction (for its summary), the kept range before it, then everything after it.
 */
function messageIdsOf(path: PathView, compactionIndex: number, keptFrom: number): string[] {
  const ids: string[] = [];
  const collect = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const entry = entryAt(path, i);
      if (becomesMessage(entry)) ids.push(entry.id);
    }
  };
  if (compactionIndex >= 0) {
    ids.push(entryAt(path, compactionIndex).id);
    collect(keptFrom, compactionIndex);
  }
  collect(compactionIndex + 1, path.length);
  return ids;
}

/**
 * Replaces `key` (keeping its place among the keys) with a value computed on first read. For a
 * branch read from the tree's own entries, which only ever grow, so the answer cannot change: an
 * agent's model call never reads the ids, and on a 200,000-entry path they are an array as long
 * as the messages, built for nothing. Reads, spreads and JSON see an ordinary value.
 */
function defineLazily<T extends object, K extends keyof T>(target: T, key: K, compute: () => T[K]): void {
  // Once read or set, an ordinary data property: the closure (and the path it holds) can go.
  const settle = (value: T[K]): T[K] => {
    try {
      Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
    } catch {
      // A frozen context keeps the accessor: each read computes the same ids again.
    }
    return value;
  };
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get: () => settle(compute()),
    set: (next: T[K]) => {
      settle(next);
    },
  });
}

/** Either kind of path, read through `entryAt`: one shape, so the reads stay monomorphic. */
interface PathView {
  readonly entries: readonly SessionEntry[];
  /** Null: the path is `entries` itself. */
  readonly slots: Int32Array | null;
  readonly length: number;
}

function viewOf(path: readonly SessionEntry[] | SlotPath): PathView {
  if (isSlotPath(path)) return { entries: path.entries, slots: path.slots, length: path.slots.length };
  return { entries: path, slots: null, length: path.length };
}

function isSlotPath(path: readonly SessionEntry[] | SlotPath): path is SlotPath {
  return !Array.isArray(path);
}

function entryAt(path: PathView, index: number): SessionEntry {
  return (
    path.slots === null ? path.entries[index] : path.entries[path.slots[index] as number]
  ) as SessionEntry;
}

/** What the one pass over a path finds. */
interface PathReading {
  thinkingLevel: string;
  /** The last entry that set the model; the model object is built once, at the end. */
  modelSource: SessionEntry | null;
  extensionState: Record<string, unknown>;
  /** The last compaction on the path, -1 if none. */
  compactionIndex: number;
  /** The messages after the last compaction: the whole context when there is none. */
  messagesSinceCompaction: MessageCollector;
}

function readPath(path: PathView): PathReading {
  const found: PathReading = {
    thinkingLevel: "off",
    modelSource: null,
    extensionState: {},
    compactionIndex: -1,
    messagesSinceCompaction: new MessageCollector(path.length),
  };
  const out = found.messagesSinceCompaction;
  for (let index = 0; index < path.length; index++) {
    const entry = entryAt(path, index);
    switch (entry.type) {
      case "message":
        out.add(entry);
        if (entry.message.role === "assistant") found.modelSource = entry;
        break;
      case "custom_message":
      case "branch_summary":
        out.add(entry);
        break;
      case "thinking_level_change":
        if (isWellFormed(entry)) found.thinkingLevel = entry.thinkingLevel;
        break;
      case "model_change":
        if (isWellFormed(entry)) found.modelSource = entry;
        break;
      case "compaction":
        if (!isWellFormed(entry)) break;
        found.compactionIndex = index;
        // What came before returns, if at all, as the kept range.
        out.clear();
        break;
      case "custom":
        // Defined, not assigned: a customType of "__proto__" is a key like any other.
        if (entry.customType !== LEAF_MARKER_TYPE && isWellFormed(entry))
          Object.defineProperty(found.extensionState, entry.customType, {
            value: (entry as CustomEntry).data,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        break;
      case "label":
      case "session_info":
        break;
      default:
        // Entries of unknown types are kept in the tree and skipped here, as pi does; a known type
        // missing above fails to compile.
        skipUnknown(entry);
    }
  }
  return found;
}

function skipUnknown(_entry: never): void {}

/** pi's order after a compaction: its summary, the kept entries before it, then what followed it. */
function compactedMessages(
  path: PathView,
  compactionIndex: number,
  keptFrom: number,
  since: MessageCollector,
): MessageCollector {
  const entry = entryAt(path, compactionIndex) as CompactionEntry;
  const out = new MessageCollector(1 + countMessages(path, keptFrom, compactionIndex) + since.size);
  out.push(compactionSummary(entry));
  for (let i = keptFrom; i < compactionIndex; i++) out.add(entryAt(path, i));
  out.append(since);
  return out;
}

type MessageSourceEntry = SessionMessageEntry | CustomMessageEntry | BranchSummaryEntry;

/**
 * The one rule for which entries reach the model: counting and collecting both use it. A message
 * entry does when its message has a role, whatever else is wrong with the entry (no timestamp), as
 * in pi; any other malformed entry (read from a file whose writer named its fields otherwise)
 * holds its place and adds nothing.
 */
function becomesMessage(entry: SessionEntry): entry is MessageSourceEntry {
  if (entry.type === "message") return hasRole(entry.message);
  return (
    (entry.type === "custom_message" || (entry.type === "branch_summary" && Boolean(entry.summary))) &&
    isWellFormed(entry)
  );
}

function countMessages(path: PathView, from: number, to: number): number {
  let count = 0;
  for (let i = from; i < to; i++) if (becomesMessage(entryAt(path, i))) count++;
  return count;
}

/** The first position before `end` holding `id`, -1 if none: pi's `findIndex`. */
function indexOfId(path: PathView, id: string, end: number): number {
  for (let i = 0; i < end; i++) if (entryAt(path, i).id === id) return i;
  return -1;
}

/**
 * The messages, in an array allocated once at its largest possible size and cut to length at the
 * end: grown by `push`, an array as long as a 200,000-entry path is copied over and over, which
 * costs more than the rest of the projection.
 */
class MessageCollector {
  readonly messages: AgentMessage[];
  private count = 0;

  constructor(capacity: number) {
    this.messages = new Array<AgentMessage>(capacity);
  }

  get size(): number {
    return this.count;
  }

  push(message: AgentMessage): void {
    this.messages[this.count] = message;
    this.count++;
  }

  add(entry: SessionEntry): void {
    if (becomesMessage(entry)) this.push(messageOf(entry));
  }

  append(other: MessageCollector): void {
    for (let i = 0; i < other.count; i++) this.push(other.messages[i] as AgentMessage);
  }

  /** Drops what was collected and keeps the space. */
  clear(): void {
    this.count = 0;
  }

  /** Cuts the array to what was collected, so no unused slot is ever seen. */
  finish(): void {
    this.messages.length = this.count;
  }
}

function messageOf(entry: MessageSourceEntry): AgentMessage {
  if (entry.type === "message") return entry.message as AgentMessage;
  if (entry.type === "custom_message") {
    const message: CustomMessage = {
      role: "custom",
      customType: entry.customType,
      content: entry.content,
      display: entry.display,
      details: entry.details,
      timestamp: Date.parse(entry.timestamp),
    };
    return message;
  }
  const summary = { role: "branchSummary" as const, summary: entry.summary, fromId: entry.fromId };
  return { ...summary, timestamp: Date.parse(entry.timestamp) };
}

function modelOf(entry: SessionEntry | null): ModelRef | null {
  if (entry === null) return null;
  if (entry.type === "model_change") return { provider: entry.provider, modelId: entry.modelId };
  const assistant = (entry as { message: AssistantMessage }).message;
  return { provider: assistant.provider, modelId: assistant.model };
}

function compactionSummary(entry: CompactionEntry): AgentMessage {
  return {
    role: "compactionSummary",
    summary: entry.summary,
    tokensBefore: entry.tokensBefore,
    timestamp: Date.parse(entry.timestamp),
  };
}

function keptRangeMissing(entry: CompactionEntry): SessionIssue {
  const kept =
    typeof entry.firstKeptEntryId === "string"
      ? `keeps from ${entry.firstKeptEntryId}, which is not on the path before it`
      : "names no first kept entry";
  return {
    code: "first_kept_not_on_path",
    severity: "warning",
    message: `Compaction ${entry.id} ${kept}; only the summary and later entries are in context`,
    entryId: entry.id,
  };
}

/**
 * pi's free function, same signature: the context at `leafId` (undefined: the last entry; null:
 * empty). Unlike pi's it cannot hang on a parent cycle.
 */
export function buildSessionContext(
  entries: readonly SessionEntry[],
  leafId?: string | null,
  byId?: ReadonlyMap<string, SessionEntry>,
): SessionContext {
  if (leafId === null) return { messages: [], thinkingLevel: "off", model: null };
  const index = byId ?? new Map(entries.map((e) => [e.id, e]));
  const leaf = (leafId ? index.get(leafId) : undefined) ?? entries[entries.length - 1];
  const path: SessionEntry[] = [];
  const seen = new Set<string>();
  for (let e = leaf; e && !seen.has(e.id); e = e.parentId === null ? undefined : index.get(e.parentId)) {
    seen.add(e.id);
    path.push(e);
  }
  const { messages, thinkingLevel, model } = projectContext(path.reverse());
  return { messages, thinkingLevel, model };
}
