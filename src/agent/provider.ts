import { type AgentMessage, type StopReason, type Usage, zeroUsage } from "../core/messages.js";

export { type Usage, zeroUsage } from "../core/messages.js";

/** A tool as the model sees it: name, description and a JSON schema for its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** pi's thinking levels. "off" sends no reasoning options. */
export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";

export const THINKING_LEVELS: readonly ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/** Everything one model call needs. Built from the session's projected context; no I/O state. */
export interface ProviderRequest {
  model: string;
  systemPrompt: string;
  messages: readonly AgentMessage[];
  tools: readonly ToolSpec[];
  thinkingLevel: ThinkingLevel;
  /** Upper bound on output tokens; providers pick a default when absent. */
  maxTokens?: number;
}

/** What a provider streams back. Exactly one `done` or `error` ends every stream. */
export type ProviderEvent =
  | { type: "text_delta"; delta: string }
  | { type: "thinking_delta"; delta: string; signature?: string }
  /** Thinking the provider sent encrypted whole (Anthropic's redacted_thinking): kept to send back. */
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_call"; id: string; name: string; arguments: Record<string, unknown> }
  | {
      type: "done";
      stopReason: StopReason;
      usage: Usage;
      responseId?: string;
      /** Set with stopReason "error" when the model itself ended badly (a refusal, a content filter). */
      errorMessage?: string;
    }
  | ProviderErrorEvent;

/**
 * A call that failed. `retryable` says a new attempt may succeed (429, 5xx, 529, a dropped
 * connection, a stream cut short); `retryAfterMs` is the server's own `retry-after`, when it gave one.
 */
export interface ProviderErrorEvent {
  type: "error";
  message: string;
  aborted: boolean;
  usage?: Usage;
  status?: number;
  retryable?: boolean;
  retryAfterMs?: number;
}

/** A conversion problem fixed before sending (an orphaned tool result, a call without result…). */
export interface Repair {
  code:
    | "orphan_tool_result"
    | "missing_tool_result"
    | "skipped_failed_assistant"
    | "duplicate_tool_result"
    | "skipped_empty_assistant"
    | "thinking_off_for_turn"
    | "joined_parallel_calls";
  message: string;
  toolCallId?: string;
}

/**
 * A model backend. `requestBody` is the exact, deterministic request body `stream` sends for the
 * same request (same context → byte-identical JSON), so tests and logs can compare requests.
 */
export interface Provider {
  /** Written into assistant messages as `provider` ("openai", "anthropic", "scripted"). */
  readonly name: string;
  /** pi's `api` field ("openai-completions", "anthropic-messages", "scripted"). */
  readonly api: string;
  requestBody(request: ProviderRequest): { body: string; repairs: Repair[] };
  stream(request: ProviderRequest, signal?: AbortSignal): AsyncIterable<ProviderEvent>;
}

export function usageOf(input: number, output: number, cacheRead = 0, cacheWrite = 0): Usage {
  const usage = zeroUsage();
  Object.assign(usage, {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
  });
  return usage;
}
