import type { CompactionEntry, CustomEntry, SessionEntry } from "./entry.js";
import { LEAF_MARKER_TYPE } from "./entry.js";
import type { SessionIssue } from "./issues.js";
import type { AgentMessage, AssistantMessage, CustomMessage } from "./messages.js";

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
 * Projects a root→leaf path into the model's context, exactly as pi's `buildSessionContext`:
 * thinking level and model from the path (an assistant message sets the model too), the last
 * compaction's summary first, then the kept entries before it from `firstKeptEntryId`, then
 * everything after it. Only messages, custom messages and non-empty branch summaries become messages.
 */
export function projectContext(path: readonly SessionEntry[]): ProjectedContext {
  let thinkingLevel = "off";
  // The last entry that set the model; the object is built once, at the end.
  let modelSource: SessionEntry | null = null;
  let compactionIndex = -1;
  const extensionState: Record<string, unknown> = {};
  // One pass collects settings and, for the common case of no compaction, the messages too.
  let out = new MessageCollector();
  for (let index = 0; index < path.length; index++) {
    const entry = path[index] as SessionEntry;
    switch (entry.type) {
      case "message":
        out.push(entry.message as AgentMessage, entry.id);
        if (entry.message.role === "assistant") modelSource = entry;
        break;
      case "custom_message":
      case "branch_summary":
        out.add(entry);
        break;
      case "thinking_level_change":
        thinkingLevel = entry.thinkingLevel;
        break;
      case "model_change":
        modelSource = entry;
        break;
      case "compaction":
        compactionIndex = index;
        break;
      case "custom":
        if (entry.customType !== LEAF_MARKER_TYPE)
          extensionState[entry.customType] = (entry as CustomEntry).data;
        break;
    }
  }
  const model = modelOf(modelSource);

  const warnings: SessionIssue[] = [];
  let compaction: ProjectedContext["compaction"] = null;
  if (compactionIndex >= 0) {
    out = new MessageCollector();
    const entry = path[compactionIndex] as CompactionEntry;
    out.push(compactionSummary(entry), entry.id);
    const keptIndex = path.findIndex((e, i) => i < compactionIndex && e.id === entry.firstKeptEntryId);
    compaction = { entryId: entry.id, firstKeptEntryId: entry.firstKeptEntryId, keptFound: keptIndex >= 0 };
    if (keptIndex < 0) warnings.push(keptRangeMissing(entry));
    if (keptIndex >= 0) for (let i = keptIndex; i < compactionIndex; i++) out.add(path[i] as SessionEntry);
    for (let i = compactionIndex + 1; i < path.length; i++) out.add(path[i] as SessionEntry);
  }
  return {
    messages: out.messages,
    thinkingLevel,
    model,
    extensionState,
    compaction,
    messageEntryIds: out.ids,
    warnings,
  };
}

class MessageCollector {
  readonly messages: AgentMessage[] = [];
  readonly ids: string[] = [];

  push(message: AgentMessage, id: string): void {
    this.messages.push(message);
    this.ids.push(id);
  }

  add(entry: SessionEntry): void {
    if (entry.type === "message") this.push(entry.message as AgentMessage, entry.id);
    else if (entry.type === "custom_message") {
      const message: CustomMessage = {
        role: "custom",
        customType: entry.customType,
        content: entry.content,
        display: entry.display,
        details: entry.details,
        timestamp: Date.parse(entry.timestamp),
      };
      this.push(message, entry.id);
    } else if (entry.type === "branch_summary" && entry.summary) {
      const summary = { role: "branchSummary" as const, summary: entry.summary, fromId: entry.fromId };
      this.push({ ...summary, timestamp: Date.parse(entry.timestamp) }, entry.id);
    }
  }
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
  return {
    code: "first_kept_not_on_path",
    severity: "warning",
    message: `Compaction ${entry.id} keeps from ${entry.firstKeptEntryId}, which is not on the path before it; only the summary and later entries are in context`,
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
