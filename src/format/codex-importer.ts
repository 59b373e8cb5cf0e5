import type { CustomEntry, SessionEntry, SessionMessageEntry } from "../core/entry.js";
import {
  type AssistantMessage,
  type ContentBlock,
  type ToolResultMessage,
  zeroUsage,
} from "../core/messages.js";
import {
  contentText,
  isHarnessText,
  isObject,
  ms,
  type Raw,
  str,
  TOOL_CALL_TYPES,
  TOOL_OUTPUT_TYPES,
  thinkingLevelOf,
  toAssistantTextBlocks,
  toThinkingBlock,
  toToolCall,
  toToolOutput,
  toUsage,
  toUserBlocks,
} from "./codex-content.js";
import { EventMapper } from "./codex-events.js";
import { type CodexRecord, lineId } from "./codex-records.js";

export interface CodexImportReport {
  /** Non-blank lines read. */
  lines: number;
  /** "envelope" (session_meta/response_item records) or "legacy" (bare response items). */
  shape: "envelope" | "legacy";
  /** Entries written, by what they came from ("user", "assistant", "tool_result", "codex.developer", ...). */
  mapped: Record<string, number>;
  /**
   * Records that needed no entry of their own, by kind: event_msg copies of messages already read
   * from response items, token counts (their usage is on the assistant message), repeated turn
   * contexts, turn start/end markers, state markers.
   */
  folded: Record<string, number>;
  /** Lines that produced nothing and were not folded (unreadable, torn), and why. */
  skipped: Array<{ line: number; reason: string }>;
  /** Tool calls no output answered, and outputs no call asked for (kept as `codex.orphan_output`). */
  unpaired: { calls: string[]; outputs: string[] };
  /** The model in force at the end of the session (the last turn context's), if any. */
  model?: string;
  /** The reasoning effort in force at the end, as pi's thinking level. */
  thinkingLevel?: string;
  notes: string[];
}

export const CUSTOM_PREFIX = "codex.";
/** Placeholder for records met before any timestamp; `finish` gives them the first real one. */
export const PENDING_TIME = "";

/**
 * Turns the records of one rollout, in file order, into a chain of pi entries. The model's items
 * between two inputs (reasoning, messages, tool calls) are one assistant message, as pi keeps one
 * provider response; the open message takes items until a user message, a tool output, a setting
 * or a compaction closes it. Side records (custom entries) in between do not close it.
 */
export class CodexImporter {
  readonly entries: SessionEntry[] = [];
  readonly report: CodexImportReport;
  meta: Raw | undefined;
  cwd: string | undefined;
  lastTimestamp: string | undefined;
  private open: SessionMessageEntry | null = null;
  /** The assistant message a token count may still give its usage to. */
  private awaitingUsage: AssistantMessage | null = null;
  private readonly calls = new Map<string, { name: string; answered: boolean }>();
  private provider = "openai";
  private model: string | undefined;
  private effort: string | undefined;
  private lastTurnContext: string | undefined;
  /** Set by a rollback: the parent of the next entry, instead of the last one (see `rollBack`). */
  private branchFrom: string | null | undefined;
  private lastTokens = 0;
  readonly events: EventMapper;
  private readonly handlers: Record<CodexRecord["kind"], (r: CodexRecord) => void> = {
    session_meta: (r) => this.sessionMeta(r),
    response_item: (r) => this.responseItem(r),
    event_msg: (r) => this.events.event(r),
    turn_context: (r) => this.turnContext(r),
    compacted: (r) => this.compacted(r),
    state: () => this.fold("state"),
    unknown: (r) => this.custom(r, r.type, r.raw),
  };

  constructor(
    shape: "envelope" | "legacy",
    readonly sources: { userTexts: Set<string>; assistantTexts: Set<string>; reasoningTexts: Set<string> },
  ) {
    this.report = {
      lines: 0,
      shape,
      mapped: {},
      folded: {},
      skipped: [],
      unpaired: { calls: [], outputs: [] },
      notes: [],
    };
    this.events = new EventMapper(this);
  }

  record(record: CodexRecord): void {
    this.report.lines++;
    this.lastTimestamp = record.timestamp ?? str(record.payload.timestamp) ?? this.lastTimestamp;
    this.handlers[record.kind](record);
  }

  private sessionMeta(record: CodexRecord): void {
    if (this.meta)
      this.report.notes.push(`line ${record.line}: another session_meta (kept as codex.session_meta)`);
    else {
      this.meta = record.payload;
      this.provider = str(record.payload.model_provider) ?? this.provider;
      this.cwd = str(record.payload.cwd);
      const model = str(record.payload.model);
      if (model) this.setModel(record, model);
    }
    // Kept whole: Codex's base instructions, git state, originator and version live here.
    this.custom(record, "session_meta", record.payload);
  }

  private responseItem(record: CodexRecord): void {
    const p = record.payload;
    const type = String(p.type);
    if (type === "message") this.message(record);
    else if (type === "reasoning") {
      const block = toThinkingBlock(p);
      if (block) this.assistantBlocks(record, [block]);
      else this.fold("reasoning (empty)");
    } else if (TOOL_CALL_TYPES.has(type)) this.toolCall(record);
    else if (TOOL_OUTPUT_TYPES.has(type)) this.toolOutput(record);
    // web searches, image generations, ghost snapshots, encrypted compactions, newer kinds
    else this.custom(record, type, p);
  }

  private message(record: CodexRecord): void {
    const p = record.payload;
    const role = String(p.role ?? "");
    if (role === "assistant") {
      this.assistantBlocks(record, toAssistantTextBlocks(p));
      return;
    }
    if (role === "user" && !isHarnessText(contentText(p.content))) {
      this.userMessage(record, toUserBlocks(p.content));
      return;
    }
    // Developer/system instructions and Codex's restated environment: kept, out of the context.
    // Early rollouts name the working directory only here.
    this.cwd ??= /<cwd>([^<]+)<\/cwd>/.exec(contentText(p.content))?.[1]?.trim();
    this.custom(record, role === "user" ? "context" : role || "message", p);
  }

  userMessage(record: CodexRecord, content: ReturnType<typeof toUserBlocks>, idSuffix = ""): void {
    this.close();
    const message = { role: "user" as const, content, timestamp: ms(this.timeOf(record)) };
    this.push({ ...this.stamp(record, idSuffix), type: "message", message }, "user");
  }

  /** Adds blocks to the open assistant message, opening one at this record when none is. */
  assistantBlocks(record: CodexRecord, blocks: ContentBlock[]): void {
    if (this.open) {
      (this.open.message as AssistantMessage).content.push(...blocks);
      return;
    }
    const message: AssistantMessage = {
      role: "assistant",
      content: blocks,
      api: "openai-responses",
      provider: this.provider,
      model: this.model ?? "unknown",
      usage: zeroUsage(),
      stopReason: "stop",
      timestamp: ms(this.timeOf(record)),
    };
    const entry: SessionMessageEntry = { ...this.stamp(record), type: "message", message };
    this.push(entry, "assistant");
    this.open = entry;
    this.awaitingUsage = message;
  }

  private toolCall(record: CodexRecord): void {
    const call = toToolCall(record.payload);
    if (!call) {
      this.custom(record, String(record.payload.type), record.payload);
      this.report.notes.push(`line ${record.line}: a tool call without a call id (kept as a custom entry)`);
      return;
    }
    this.calls.set(call.id, { name: call.name, answered: false });
    this.assistantBlocks(record, [call]);
    (this.open?.message as AssistantMessage).stopReason = "toolUse";
  }

  private toolOutput(record: CodexRecord): void {
    const p = record.payload;
    const callId = str(p.call_id) ?? "";
    const call = this.calls.get(callId);
    if (!call || call.answered) {
      // Codex leaves such outputs out of what it sends the model; so does the context here.
      this.custom(record, "orphan_output", p);
      this.report.unpaired.outputs.push(callId);
      this.report.notes.push(
        `line ${record.line}: output for call ${callId || "(no id)"} ${call ? "answered already" : "with no call before it"}`,
      );
      return;
    }
    call.answered = true;
    this.close();
    const { content, isError } = toToolOutput(p);
    const message: ToolResultMessage = {
      role: "toolResult",
      toolCallId: callId,
      toolName: str(p.name) ?? call.name,
      content,
      isError,
      timestamp: ms(this.timeOf(record)),
    };
    this.push({ ...this.stamp(record), type: "message", message }, "tool_result");
  }

  private turnContext(record: CodexRecord): void {
    const p = record.payload;
    this.cwd ??= str(p.cwd);
    const model = str(p.model);
    const settings =
      isObject(p.collaboration_mode) && isObject(p.collaboration_mode.settings)
        ? p.collaboration_mode.settings
        : {};
    const effort = str(p.effort) ?? str(settings.reasoning_effort);
    if (model && model !== this.model) this.setModel(record, model);
    if (effort && effort !== this.effort) this.setEffort(record, effort);
    // The rest (cwd, sandbox and approval policy, instructions) is kept whenever it changes.
    const { turn_id: _turn, trace_id: _trace, ...rest } = p;
    const key = JSON.stringify(rest);
    if (key === this.lastTurnContext) this.fold("turn_context (unchanged)");
    else this.custom(record, "turn_context", p, ".ctx");
    this.lastTurnContext = key;
  }

  private setModel(record: CodexRecord, model: string): void {
    this.close();
    this.model = model;
    this.report.model = model;
    this.push(
      { ...this.stamp(record, ".model"), type: "model_change", provider: this.provider, modelId: model },
      "model_change",
    );
  }

  private setEffort(record: CodexRecord, effort: string): void {
    this.close();
    this.effort = effort;
    const thinkingLevel = thinkingLevelOf(effort);
    this.report.thinkingLevel = thinkingLevel;
    this.push(
      { ...this.stamp(record, ".thinking"), type: "thinking_level_change", thinkingLevel },
      "thinking_level_change",
    );
  }

  /**
   * Codex replaced its history with a summary. The record is kept (its replacement history too)
   * as a custom entry that the compaction names as its first kept entry, so the context after it
   * is the summary and what follows, with nothing kept from before.
   */
  private compacted(record: CodexRecord): void {
    this.close();
    this.custom(record, "compacted", record.payload);
    const kept = this.entries[this.entries.length - 1] as CustomEntry;
    this.push(
      {
        ...this.stamp(record, ".summary"),
        type: "compaction",
        summary: compactionSummary(record.payload),
        firstKeptEntryId: kept.id,
        tokensBefore: this.lastTokens,
        details: { source: "codex" },
      },
      "compaction",
    );
  }

  /** A token count's usage belongs to the assistant message just produced (once). */
  usage(info: unknown): boolean {
    const usage = toUsage(info);
    if (usage && isObject(info) && isObject(info.total_token_usage)) {
      const total = info.total_token_usage.total_tokens;
      if (typeof total === "number") this.lastTokens = total;
    }
    if (!usage || !this.awaitingUsage) return false;
    this.awaitingUsage.usage = usage;
    this.awaitingUsage = null;
    return true;
  }

  /** Where the conversation stands: the next entry's parent, the leaf when none follows. */
  tip(): string | null {
    if (this.branchFrom !== undefined) return this.branchFrom;
    return this.entries[this.entries.length - 1]?.id ?? null;
  }

  /**
   * Codex's `thread_rolled_back`: its history drops the last `turns` user turns, each from a user
   * message on (codex-rs `drop_last_n_user_turns`). They stay here as a branch left behind: what
   * comes next hangs where the first dropped turn began. A compaction's history holds no older
   * turn, so the walk back stops at one, as it stops at the first user message.
   */
  rollBack(turns: unknown): void {
    if (typeof turns !== "number" || !Number.isInteger(turns) || turns <= 0) return;
    this.close();
    this.awaitingUsage = null;
    const byId = new Map(this.entries.map((entry) => [entry.id, entry]));
    let cut: string | null | undefined;
    let dropped = 0;
    for (let at = this.tip(); at !== null && dropped < turns; ) {
      const entry = byId.get(at);
      if (!entry || entry.type === "compaction") break;
      if (entry.type === "message" && entry.message.role === "user") {
        cut = entry.parentId;
        dropped++;
      }
      at = entry.parentId;
    }
    if (cut !== undefined) this.branchFrom = cut;
  }

  /** Ends the open assistant message: what the model says next is a new response. */
  close(): void {
    this.open = null;
  }

  custom(record: CodexRecord, kind: string, data: unknown, idSuffix = ""): void {
    const entry: CustomEntry = {
      ...this.stamp(record, idSuffix),
      type: "custom",
      customType: CUSTOM_PREFIX + kind,
      data,
    };
    this.push(entry, CUSTOM_PREFIX + kind);
  }

  fold(kind: string): void {
    this.report.folded[kind] = (this.report.folded[kind] ?? 0) + 1;
  }

  push(entry: SessionEntry, kind: string): void {
    entry.parentId = this.tip();
    this.branchFrom = undefined;
    this.entries.push(entry);
    this.report.mapped[kind] = (this.report.mapped[kind] ?? 0) + 1;
  }

  finishCalls(): void {
    for (const [id, call] of this.calls) {
      if (call.answered) continue;
      this.report.unpaired.calls.push(id);
      this.report.notes.push(`call ${id} (${call.name}) has no output in the file`);
    }
  }

  private timeOf(record: CodexRecord): string | undefined {
    return record.timestamp ?? str(record.payload.timestamp) ?? this.lastTimestamp;
  }

  private stamp(record: CodexRecord, suffix = "") {
    return {
      id: lineId(record.line, suffix),
      parentId: null as string | null,
      timestamp: this.timeOf(record) ?? PENDING_TIME,
    };
  }
}

/**
 * What the model was left with after a compaction: Codex's summary message, or, in versions that
 * leave it empty, the readable messages of the replacement history (encrypted items stay out).
 */
function compactionSummary(payload: Raw): string {
  if (typeof payload.message === "string" && payload.message.trim() !== "") return payload.message;
  const history = Array.isArray(payload.replacement_history) ? payload.replacement_history : [];
  return history
    .filter((item): item is Raw => isObject(item) && item.type === "message")
    .map((item) => contentText(item.content))
    .filter((text) => text.trim() !== "" && !isHarnessText(text))
    .join("\n\n");
}
