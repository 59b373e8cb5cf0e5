import type { AssistantMessage, ToolCallContent, ToolResultMessage, UserMessage } from "../core/messages.js";
import type { Repair } from "./provider.js";

export type LoopMessage = UserMessage | AssistantMessage | ToolResultMessage;

/**
 * What the loop reports. Only `message_end` carries something to persist; updates and progress
 * are for UIs and are never written.
 */
export type AgentEvent =
  | { type: "turn_start"; turn: number }
  | { type: "turn_end"; turn: number; assistant: AssistantMessage; toolResults: ToolResultMessage[] }
  | { type: "request"; body: string; repairs: Repair[] }
  | { type: "message_start"; message: LoopMessage }
  | { type: "message_update"; message: AssistantMessage; delta: { kind: "text" | "thinking"; text: string } }
  | { type: "message_end"; message: LoopMessage }
  | { type: "tool_call_start"; call: ToolCallContent }
  | { type: "tool_call_progress"; call: ToolCallContent; update: unknown }
  | { type: "tool_call_end"; call: ToolCallContent; result: ToolResultMessage }
  | { type: "abort"; reason: string }
  /** A model call failed in a way worth another attempt; the next one starts after `delayMs`. */
  | { type: "retry"; attempt: number; maxRetries: number; delayMs: number; error: string }
  /**
   * A prompt whose run failed before any reply: the leaf went back to where it was, so the prompt
   * is not sent again with the next one. Its entries stay in the tree, on a side branch.
   */
  | { type: "prompt_rewound"; userEntryId: string; leafId: string | null }
  /**
   * An automatic compaction starts: `auto`, the context neared `contextWindow` (before the prompt
   * is sent); `overflow`, the provider refused the context as over the model's window (the run
   * goes on once from the compacted context).
   */
  | { type: "compaction_start"; reason: CompactionReason; tokens: number; contextWindow: number }
  /**
   * The automatic compaction ended: `entryId` is the `compaction` entry written, undefined when
   * there was nothing to compact or it failed (`error`; an `auto` prompt is still sent, an
   * `overflow` run ends with the provider's error).
   */
  | { type: "compaction_end"; reason: CompactionReason; entryId: string | undefined; error?: string }
  | { type: "error"; message: string };

export type CompactionReason = "auto" | "overflow";

/** Listeners may be async; the loop waits for each before going on, so their writes stay in order. */
export type AgentListener = (event: AgentEvent) => void | Promise<void>;
