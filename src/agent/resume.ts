import type { SessionEntry } from "../core/entry.js";
import type { AssistantMessage, ToolCallContent, ToolResultMessage } from "../core/messages.js";

export const INTERRUPTED_RESULT_TEXT =
  "Interrupted: the agent stopped (the process ended) before this tool call finished. It may or may not have taken effect.";

/**
 * The tool results a crashed turn never wrote: for the last assistant message on the path, one
 * error result per tool call that has no result after it. Appending them makes the interrupted
 * turn visibly aborted instead of silently repaired at every request.
 */
export function interruptedResults(path: readonly SessionEntry[]): ToolResultMessage[] {
  let assistantIndex = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i] as SessionEntry;
    if (entry.type !== "message") continue;
    if (entry.message.role === "assistant") {
      assistantIndex = i;
      break;
    }
    if (entry.message.role !== "toolResult") return [];
  }
  if (assistantIndex < 0) return [];
  const assistant = (path[assistantIndex] as Extract<SessionEntry, { type: "message" }>)
    .message as AssistantMessage;
  const answered = new Set<string>();
  for (const entry of path.slice(assistantIndex + 1)) {
    if (entry.type === "message" && entry.message.role === "toolResult")
      answered.add((entry.message as ToolResultMessage).toolCallId);
  }
  return assistant.content
    .filter((b): b is ToolCallContent => b.type === "toolCall" && !answered.has(b.id))
    .map((call) => ({
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text: INTERRUPTED_RESULT_TEXT }],
      isError: true,
      details: { interrupted: true },
      timestamp: Date.now(),
    }));
}

export const INTERRUPTED_REPLY_TEXT =
  "Interrupted: the agent stopped (the process ended) before the reply was complete.";

/**
 * The assistant message a crashed turn never wrote: when the path's last message is a user
 * message with no reply, an empty `aborted` reply (providers never see it; people and pi do).
 */
export function interruptedReply(
  path: readonly SessionEntry[],
  model: { provider: string; modelId: string },
  api: string,
): AssistantMessage | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const entry = path[i] as SessionEntry;
    if (entry.type !== "message") continue;
    if (entry.message.role !== "user") return undefined;
    return {
      role: "assistant",
      content: [],
      api,
      provider: model.provider,
      model: model.modelId,
      stopReason: "aborted",
      errorMessage: INTERRUPTED_REPLY_TEXT,
      timestamp: Date.now(),
    };
  }
  return undefined;
}
