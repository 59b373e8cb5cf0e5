import {
  type CompactionEntry,
  CURRENT_SESSION_VERSION,
  type CustomEntry,
  LEAF_MARKER_TYPE,
  type SessionEntry,
  type SessionHeader,
  type SessionInfoEntry,
  type SessionMessageEntry,
} from "../core/entry.js";
import type { AppendableMessage, AssistantMessage } from "../core/messages.js";
import { newSessionId } from "../core/session-id.js";
import {
  assistantMeta,
  ms,
  parseObject,
  type Raw,
  stopReasonOf,
  str,
  textOf,
  toAssistantBlocks,
  toToolResult,
  toUserBlock,
  userContentOf,
} from "./claude-code-content.js";
import { isSubagentFile, mainSessionId, subagentSessionId, TitlePicker } from "./claude-code-meta.js";

export { looksLikeClaudeCode } from "./claude-code-meta.js";

/**
 * Claude Code session files (`~/.claude/projects/<dir>/<session>.jsonl`) into a pi v3 session.
 *
 * - `user`/`assistant` lines (uuid/parentUuid) become `message` entries with their uuid as id, so
 *   a re-import of a grown file makes the same ids. An assistant reply that Claude Code split into
 *   one line per content block (same `message.id`, each line the parent of the next, perhaps with
 *   progress records between) is merged back into one message, with the stop reason of its last
 *   part, so tool calls and their results pair up as the provider expects. A user line of tool
 *   results becomes one `toolResult` message per result. Text given as a plain string stays text.
 * - A `compact_boundary` (parentUuid null, `logicalParentUuid` = the entry before it) becomes a
 *   `custom` entry hung under that logical parent; the `isCompactSummary` message after it becomes a
 *   `compaction` whose kept range starts at the boundary (nothing before it is kept, as in Claude Code).
 * - Sidechain (subagent) lines are `custom` entries (`claude-code.sidechain`): visible in the tree,
 *   never in the main conversation's context.
 * - Side records without a uuid (summary, ai-title, permission-mode, file-history-snapshot, ...)
 *   and other typed lines become `custom` entries `claude-code.<type>` holding the raw record,
 *   chained in at their place in the file. The session's name comes from them (`TitlePicker`).
 * - The leaf is the last entry of the conversation (a message or compaction), never a metadata
 *   record after it: a leaf marker says so when the file goes on past it.
 * - Lines that are not JSON objects are reported with their line number. Nothing is dropped silently.
 */
export interface ClaudeImportResult {
  header: SessionHeader;
  /** Entries in file order; ends with a sessiontree leaf marker when the last line is not the leaf. */
  entries: SessionEntry[];
  leafId: string | null;
  /** The session's name (also written as a `session_info` entry). */
  name: string | undefined;
  /** Ids of entries the import made up (the name, the leaf marker) rather than read from a line. */
  derivedIds: string[];
  report: ClaudeImportReport;
}

export interface ClaudeImportReport {
  /** Non-blank lines read. */
  lines: number;
  /** Entries written, by what they came from ("user", "assistant", "tool_result", "summary", ...). */
  mapped: Record<string, number>;
  /** Assistant lines folded into the message started by an earlier line of the same reply. */
  merged: number;
  /** Lines that produced no entry, and why. */
  skipped: Array<{ line: number; reason: string }>;
  /** Things the import changed that a reader should know (parents made roots, ...). */
  notes: string[];
}

export interface ClaudeImportOptions {
  /**
   * The session id to give the result; default: the one in the file's name (`<uuid>.jsonl`), else
   * the last sessionId its records give, else a new one (see `mainSessionId`).
   */
  sessionId?: string;
  /** The source's file name: names the session (`<uuid>.jsonl`) or a subagent (`agent-<id>.jsonl`). */
  fileName?: string;
}

const CUSTOM_PREFIX = "claude-code.";
/** Placeholder for records met before any timestamp; `finish` gives them the first real one. */
const PENDING_TIME = "";

export function importClaudeCode(text: string, options: ClaudeImportOptions = {}): ClaudeImportResult {
  const lines = text.split("\n");
  const importer = new ClaudeImporter(isSubagentFile(lines));
  lines.forEach((line, index) => {
    importer.line(line, index + 1);
  });
  return importer.finish(options);
}

class ClaudeImporter {
  private readonly entries: SessionEntry[] = [];
  private readonly report: ClaudeImportReport = { lines: 0, mapped: {}, merged: 0, skipped: [], notes: [] };
  private readonly seen = new Map<string, string>();
  /** Claude uuid → the id its children hang under (the last entry made from it, or a side record after it). */
  private readonly tail = new Map<string, string>();
  /** Entry id → the message (or compaction) it follows: itself for those, its parent's for records. */
  private readonly anchor = new Map<string, string | null>();
  private readonly toolNames = new Map<string, string>();
  private readonly replies = new Map<string, SessionMessageEntry>();
  /** Assistant entry id → the last tool result hung after it (parallel results are chained). */
  private readonly resultTail = new Map<string, string>();
  /** Assistant entries by id. */
  private readonly replyEntries = new Map<string, SessionMessageEntry>();
  private readonly titles = new TitlePicker();
  private lastMain: string | null = null;
  /** The last entry of the conversation (message or compaction), in file order: the leaf. */
  private lastTurn: string | null = null;
  /** Side records met before the first message, chained: the first root message hangs under them. */
  private preamble: string | null = null;
  /** The latest timestamp seen: side records without one take it (or, before any, the first one). */
  private lastTimestamp: string | undefined;
  /** The first record's sessionId (a subagent's file: its session's) and the last one. */
  private sessionId: string | undefined;
  private lastSessionId: string | undefined;
  private cwd: string | undefined;
  private version: string | undefined;
  private agentId: string | undefined;
  private firstUuid: string | undefined;

  constructor(private readonly subagentFile: boolean) {}

  line(text: string, lineNo: number): void {
    if (text.trim() === "") return;
    this.report.lines++;
    const record = parseObject(text);
    if (!record) {
      this.skip(lineNo, "not a JSON object");
      return;
    }
    if (typeof record.timestamp === "string") this.lastTimestamp = record.timestamp;
    this.sessionId ??= str(record.sessionId);
    this.lastSessionId = str(record.sessionId) ?? this.lastSessionId;
    this.cwd ??= str(record.cwd);
    this.version ??= str(record.version);
    this.agentId ??= str(record.agentId);
    const uuid = str(record.uuid);
    this.firstUuid ??= uuid;
    if (!uuid) this.sideRecord(record);
    else if (!this.isDuplicate(uuid, text.trim(), lineNo)) this.dispatch(record, uuid);
  }

  private isDuplicate(uuid: string, text: string, lineNo: number): boolean {
    const previous = this.seen.get(uuid);
    if (previous === undefined) {
      this.seen.set(uuid, text);
      return false;
    }
    this.skip(
      lineNo,
      previous === text ? `duplicate of uuid ${uuid}` : `uuid ${uuid} again with other content`,
    );
    return true;
  }

  private dispatch(record: Raw, uuid: string): void {
    if (record.isSidechain === true && !this.subagentFile) this.sidechain(record, uuid);
    else if (record.type === "assistant") this.assistant(record, uuid);
    else if (record.type === "user") this.user(record, uuid);
    else if (record.type === "system" && record.subtype === "compact_boundary") this.boundary(record, uuid);
    else this.custom(uuid, this.parentOf(record), String(record.type ?? "record"), record, true);
  }

  finish(options: ClaudeImportOptions): ClaudeImportResult {
    const leafId = this.lastTurn ?? this.lastMainTail() ?? this.preamble;
    const derivedIds: string[] = [];
    const name = this.titles.pick((uuid) => this.seen.has(uuid));
    if (name !== undefined) {
      // Claude Code's title becomes the session's name: beside the leaf, which stays on the talk.
      const info: SessionInfoEntry = {
        ...this.stamp(`${leafId ?? "root"}.name`, leafId),
        type: "session_info",
        name,
      };
      this.push(info, "title");
      derivedIds.push(info.id);
    }
    const last = this.entries[this.entries.length - 1];
    if (leafId !== null && last && last.id !== leafId) {
      const marker: CustomEntry = {
        ...this.stamp(`${leafId}.leaf`, leafId),
        type: "custom",
        customType: LEAF_MARKER_TYPE,
      };
      this.entries.push(marker);
      derivedIds.push(marker.id);
    }
    const first = this.entries.find((e) => e.timestamp !== PENDING_TIME);
    for (const entry of this.entries) {
      if (entry.timestamp === PENDING_TIME) entry.timestamp = first?.timestamp ?? new Date().toISOString();
    }
    // A subagent file shares its session's id: give it its own.
    const own = this.subagentFile
      ? subagentSessionId(this.sessionId, this.agentId, options.fileName, this.firstUuid)
      : { id: mainSessionId(options.fileName, this.lastSessionId), agentId: this.agentId };
    const header: SessionHeader = {
      type: "session",
      version: CURRENT_SESSION_VERSION,
      id: options.sessionId ?? own.id ?? newSessionId(),
      timestamp: first?.timestamp ?? new Date().toISOString(),
      cwd: this.cwd ?? "",
      importedFrom: {
        format: "claude-code",
        sessionId: this.sessionId,
        agentId: own.agentId,
        version: this.version,
      },
    };
    return { header, entries: this.entries, leafId, name, derivedIds, report: this.report };
  }

  private user(record: Raw, uuid: string): void {
    const message = (record.message ?? {}) as Raw;
    const parentId = this.parentOf(record);
    if (record.isCompactSummary === true) {
      this.compaction(record, uuid, parentId, message);
      return;
    }
    const content = userContentOf(record);
    if (content === undefined) {
      // No message to speak of: kept as the record it is, not as an empty message.
      this.custom(uuid, parentId, "user", record, true);
      return;
    }
    const blocks = typeof content === "string" ? [] : content;
    const results = blocks.filter((b) => b?.type === "tool_result");
    const rest = blocks.filter((b) => b?.type !== "tool_result");
    const messages: Array<[string, AppendableMessage]> = [];
    if (typeof content === "string" || rest.length > 0 || results.length === 0) {
      const text = typeof content === "string" ? content : rest.map(toUserBlock);
      messages.push(["user", { role: "user", content: text, timestamp: ms(record.timestamp) }]);
    }
    for (const result of results)
      messages.push(["tool_result", toToolResult(result, record, this.toolNames)]);
    // Only a line of tool results follows its reply's earlier results; a prompt (text, even when
    // it stands under the reply, as an edited one does) starts a turn of its own.
    const reply = results.length > 0 && rest.length === 0 ? this.replyBefore(parentId) : undefined;
    let parent = reply === undefined ? parentId : (this.resultTail.get(reply) ?? parentId);
    messages.forEach(([kind, msg], i) => {
      const id = i === 0 ? uuid : `${uuid}.${i}`;
      this.push({ ...this.stamp(id, parent, record), type: "message", message: msg }, kind);
      parent = id;
    });
    if (reply !== undefined) {
      this.resultTail.set(reply, parent as string);
      // The results belong to the reply: a later part of it (Claude Code writes parts of one reply
      // between its results) is merged into it, and what follows a result follows the reply.
      for (let i = 0; i < messages.length; i++) this.anchor.set(i === 0 ? uuid : `${uuid}.${i}`, reply);
    }
    this.tail.set(uuid, parent as string);
    this.lastMain = uuid;
    this.lastTurn = parent;
  }

  private assistant(record: Raw, uuid: string): void {
    const message = (
      typeof record.message === "object" && record.message !== null ? record.message : {}
    ) as Raw;
    const content = typeof record.message === "string" ? record.message : message.content;
    const parentId = this.parentOf(record);
    const replyId = str(message.id);
    const earlier = replyId ? this.replies.get(replyId) : undefined;
    const blocks = toAssistantBlocks(content, this.toolNames);
    let entry: SessionMessageEntry;
    if (earlier && parentId !== null && this.anchor.get(parentId) === earlier.id) {
      // Same API reply, continued on another line: one message, as the model produced it.
      entry = earlier;
      const merged = earlier.message as AssistantMessage;
      merged.content = [...merged.content, ...blocks];
      Object.assign(merged, assistantMeta(message, record));
      this.report.merged++;
    } else {
      const msg: AssistantMessage = { ...assistantMeta(message, record), role: "assistant", content: blocks };
      entry = { ...this.stamp(uuid, parentId, record), type: "message", message: msg };
      this.push(entry, "assistant");
      this.replyEntries.set(entry.id, entry);
      if (replyId) this.replies.set(replyId, entry);
    }
    const msg = entry.message as AssistantMessage;
    msg.stopReason = stopReasonOf(message.stop_reason, msg.content);
    this.tail.set(uuid, entry.id);
    this.lastMain = uuid;
    this.lastTurn = this.afterResults(entry.id);
  }

  /**
   * The assistant reply a line of tool results answers, when its parent is that reply. Claude Code
   * 2.1 hangs each of a reply's parallel tool results under the line of its own call: chained after
   * the reply's earlier results instead, every result stays on the path, in order, as the model
   * needs them (and as Claude Code rebuilds them on resume).
   */
  private replyBefore(parentId: string | null): string | undefined {
    const anchor = parentId === null ? null : (this.anchor.get(parentId) ?? null);
    if (anchor === null) return undefined;
    const entry = this.replyEntries.get(anchor);
    return entry ? anchor : undefined;
  }

  private boundary(record: Raw, uuid: string): void {
    const logical = str(record.logicalParentUuid);
    const parentId = logical ? this.resolveKnown(logical) : this.parentOf(record);
    this.custom(uuid, parentId, "compact_boundary", record, true);
  }

  private compaction(record: Raw, uuid: string, parentId: string | null, message: Raw): void {
    const boundary = parentId === null ? undefined : this.entries.find((e) => e.id === parentId);
    const meta = (boundary as CustomEntry<Raw> | undefined)?.data?.compactMetadata as Raw | undefined;
    const entry: CompactionEntry = {
      ...this.stamp(uuid, parentId, record),
      type: "compaction",
      summary: textOf(message.content),
      // The boundary is on the path just before: "kept from the boundary" keeps no message.
      firstKeptEntryId: parentId ?? uuid,
      tokensBefore: typeof meta?.preTokens === "number" ? meta.preTokens : 0,
      details: { source: "claude-code", trigger: meta?.trigger },
    };
    this.push(entry, "compaction");
    this.tail.set(uuid, uuid);
    this.lastMain = uuid;
    this.lastTurn = uuid;
  }

  private sidechain(record: Raw, uuid: string): void {
    // A subagent's conversation: its root hangs under the main entry it ran from.
    const parentUuid = str(record.parentUuid);
    const parentId = parentUuid ? this.resolveKnown(parentUuid) : this.lastMainTail();
    this.custom(uuid, parentId, "sidechain", record, false);
    this.tail.set(uuid, uuid);
  }

  /** A record without a uuid: chained after the latest main entry, so the tree keeps its shape. */
  private sideRecord(record: Raw): void {
    const kind = String(record.type ?? "record");
    const id = `${kind}-${this.entries.length}`;
    this.titles.see(record);
    this.custom(id, this.lastMainTail() ?? this.preamble, kind, record, false);
    if (this.lastMain !== null) this.tail.set(this.lastMain, id);
    else this.preamble = id;
  }

  private custom(id: string, parentId: string | null, kind: string, record: Raw, isMain: boolean): void {
    const entry: CustomEntry = {
      ...this.stamp(id, parentId, record),
      type: "custom",
      customType: CUSTOM_PREFIX + kind,
      data: record,
    };
    this.push(entry, kind);
    if (isMain) {
      this.tail.set(id, id);
      this.lastMain = id;
    }
  }

  private push(entry: SessionEntry, kind: string): void {
    this.entries.push(entry);
    const follows = entry.parentId === null ? null : (this.anchor.get(entry.parentId) ?? null);
    this.anchor.set(entry.id, entry.type === "custom" || entry.type === "session_info" ? follows : entry.id);
    this.report.mapped[kind] = (this.report.mapped[kind] ?? 0) + 1;
  }

  private skip(line: number, reason: string): void {
    this.report.skipped.push({ line, reason });
  }

  private parentOf(record: Raw): string | null {
    const parentUuid = str(record.parentUuid);
    if (parentUuid) return this.resolveKnown(parentUuid);
    return this.lastMain === null ? this.preamble : null;
  }

  private resolve(uuid: string): string {
    return this.tail.get(uuid) ?? uuid;
  }

  /** The id to hang a child of `uuid` under; a parent not in the file makes the child a root. */
  private resolveKnown(uuid: string): string | null {
    if (this.tail.has(uuid)) return this.afterResults(this.resolve(uuid));
    this.report.notes.push(`parent ${uuid} is not in the file: its child became a root`);
    return null;
  }

  /** A child of a reply whose tool results are chained after it hangs after the last result. */
  private afterResults(id: string): string {
    return this.replyEntries.has(id) ? (this.resultTail.get(id) ?? id) : id;
  }

  private lastMainTail(): string | null {
    return this.lastMain === null ? null : this.resolve(this.lastMain);
  }

  private stamp(id: string, parentId: string | null, record?: Raw) {
    const timestamp = str(record?.timestamp) ?? this.lastTimestamp ?? PENDING_TIME;
    return { id, parentId, timestamp };
  }
}
