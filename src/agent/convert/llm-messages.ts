import type {
  AgentMessage,
  AssistantMessage,
  ImageContent,
  TextContent,
  ToolCallContent,
  ToolResultMessage,
  UserMessage,
} from "../../core/messages.js";
import type { Repair } from "../provider.js";

/** pi's wording, so a model sees summaries exactly as it would under pi. */
export const COMPACTION_SUMMARY_PREFIX =
  "The conversation history before this point was compacted into the following summary:\n<summary>\n";
export const COMPACTION_SUMMARY_SUFFIX = "\n</summary>";
export const BRANCH_SUMMARY_PREFIX =
  "The following is a summary of a branch that this conversation came back from:\n<summary>\n";
export const BRANCH_SUMMARY_SUFFIX = "</summary>";
/** The text of a tool result synthesized for a call that never got one. */
export const MISSING_RESULT_TEXT = "No result provided: the tool call was aborted before it finished.";

export type LlmMessage = UserMessage | AssistantMessage | ToolResultMessage;

/**
 * The projected context as the three roles every provider knows (pi's `convertToLlm`), then
 * repaired so no provider rejects it: failed (error/aborted) assistant turns are left out, every
 * tool call gets exactly one result right after it, and results without a call become user text.
 */
export function toLlmMessages(messages: readonly AgentMessage[]): {
  messages: LlmMessage[];
  repairs: Repair[];
} {
  const plain: LlmMessage[] = [];
  for (const message of messages) {
    const converted = toLlm(message);
    if (converted) plain.push(converted);
  }
  return repairToolPairs(plain);
}

function toLlm(message: AgentMessage | { role: string; [key: string]: unknown }): LlmMessage | undefined {
  const m = message as Record<string, unknown> & { role: string };
  switch (m.role) {
    case "user":
    case "assistant":
    case "toolResult":
      return message as LlmMessage;
    case "custom":
      return userText(m.content as UserMessage["content"], m.timestamp);
    case "branchSummary":
      return userText(BRANCH_SUMMARY_PREFIX + String(m.summary) + BRANCH_SUMMARY_SUFFIX, m.timestamp);
    case "compactionSummary":
      return userText(COMPACTION_SUMMARY_PREFIX + String(m.summary) + COMPACTION_SUMMARY_SUFFIX, m.timestamp);
    case "bashExecution":
      return m.excludeFromContext ? undefined : userText(bashText(m), m.timestamp);
    default:
      return undefined;
  }
}

function userText(content: UserMessage["content"], timestamp: unknown): UserMessage {
  const blocks = typeof content === "string" ? [{ type: "text" as const, text: content }] : content;
  return { role: "user", content: blocks, timestamp: typeof timestamp === "number" ? timestamp : undefined };
}

function bashText(m: Record<string, unknown>): string {
  const output = typeof m.output === "string" && m.output ? `\`\`\`\n${m.output}\n\`\`\`` : "(no output)";
  return `Ran \`${String(m.command)}\`\n${output}`;
}

/**
 * Every tool call answered right after its turn, once: a result is matched to its open call; a
 * call left open gets an "aborted" result when the run of results ends; a result with no open call
 * becomes user text after that run (never inside it: the APIs want a turn's results together and
 * first); a second result of a call is dropped. Assistant messages that only hold calls, following
 * one whose calls are all still open, are one turn's parallel calls written one per message (the
 * OpenAI Agents adapter stores an item per entry): they are sent as that one turn.
 */
function repairToolPairs(input: LlmMessage[]): { messages: LlmMessage[]; repairs: Repair[] } {
  const out: LlmMessage[] = [];
  const repairs: Repair[] = [];
  let pending: ToolCallContent[] = [];
  /** Whether the last message out is an assistant turn none of whose calls has a result yet. */
  let turnOpen = false;
  let orphans: UserMessage[] = [];
  const answered = new Set<string>();
  const endRun = () => {
    for (const call of pending) {
      repairs.push({
        code: "missing_tool_result",
        message: `Tool call ${call.id} (${call.name}) had no result; sent as aborted`,
        toolCallId: call.id,
      });
      out.push(syntheticResult(call));
    }
    pending = [];
    out.push(...orphans);
    orphans = [];
  };
  for (const message of input) {
    if (message.role === "toolResult") {
      turnOpen = false;
      const index = pending.findIndex((call) => call.id === message.toolCallId);
      if (index >= 0) {
        pending.splice(index, 1);
        answered.add(message.toolCallId);
        out.push(message);
      } else {
        const duplicate = answered.has(message.toolCallId);
        repairs.push({
          code: duplicate ? "duplicate_tool_result" : "orphan_tool_result",
          message: `Tool result ${message.toolCallId} has no open tool call; ${duplicate ? "dropped" : "sent as user text"}`,
          toolCallId: message.toolCallId,
        });
        if (!duplicate) orphans.push(orphanAsText(message));
      }
      continue;
    }
    if (turnOpen && message.role === "assistant" && onlyCalls(message) && !failed(message)) {
      const turn = out[out.length - 1] as AssistantMessage;
      out[out.length - 1] = { ...turn, content: [...turn.content, ...message.content] };
      pending.push(...(message.content as ToolCallContent[]));
      repairs.push({
        code: "joined_parallel_calls",
        message: "Tool calls written one per message, with no result between them, are sent as one turn",
      });
      continue;
    }
    endRun();
    turnOpen = false;
    if (message.role === "assistant" && failed(message)) {
      repairs.push({
        code: "skipped_failed_assistant",
        message: `An assistant message that ended with "${message.stopReason}" is not sent`,
      });
      continue;
    }
    out.push(message);
    if (message.role === "assistant") {
      pending = message.content.filter((b): b is ToolCallContent => b.type === "toolCall");
      turnOpen = pending.length > 0;
    }
  }
  endRun();
  return { messages: out, repairs };
}

function failed(message: AssistantMessage): boolean {
  return message.stopReason === "error" || message.stopReason === "aborted";
}

function onlyCalls(message: AssistantMessage): boolean {
  return message.content.length > 0 && message.content.every((block) => block.type === "toolCall");
}

function syntheticResult(call: ToolCallContent): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text: MISSING_RESULT_TEXT }],
    isError: true,
  };
}

function orphanAsText(result: ToolResultMessage): UserMessage {
  const body = result.content
    .filter((b): b is TextContent => b.type === "text")
    .map((b) => b.text)
    .join("\n");
  const text = `[Result of tool ${result.toolName} (call ${result.toolCallId}), whose call is not in this context]\n${body}`;
  return { role: "user", content: [{ type: "text", text }], timestamp: result.timestamp };
}

/** The user-visible parts of a message's content as blocks. */
export function contentBlocks(content: UserMessage["content"]): (TextContent | ImageContent)[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}
