import type { ImageContent, TextContent, ToolCallContent } from "../../core/messages.js";
import type { ProviderRequest, Repair } from "../provider.js";
import { contentBlocks, type LlmMessage, toLlmMessages } from "./llm-messages.js";
import { stableStringify } from "./stable-json.js";

type Json = Record<string, unknown>;

/**
 * An OpenAI Chat Completions request (streaming) for a projected context. Thinking blocks are not
 * sent back (the API has no field for them); the thinking level maps to `reasoning_effort`.
 */
export function openAiPayload(request: ProviderRequest): { payload: Json; repairs: Repair[] } {
  const { messages, repairs } = toLlmMessages(request.messages);
  const out: Json[] = [];
  if (request.systemPrompt) out.push({ role: "system", content: request.systemPrompt });
  for (const message of messages) {
    const converted = openAiMessage(message);
    if (converted) out.push(converted);
    else
      repairs.push({
        code: "skipped_empty_assistant",
        message: "An assistant message with no text and no tool call (empty or reasoning only) is not sent",
      });
  }
  const payload: Json = {
    model: request.model,
    messages: out,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.maxTokens !== undefined) payload.max_completion_tokens = request.maxTokens;
  if (request.tools.length > 0) {
    payload.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  if (request.thinkingLevel !== "off") payload.reasoning_effort = reasoningEffort(request.thinkingLevel);
  return { payload, repairs };
}

/** The exact body bytes: keys sorted, so equal contexts give equal bodies. */
export function openAiBody(request: ProviderRequest): { body: string; repairs: Repair[] } {
  const { payload, repairs } = openAiPayload(request);
  return { body: stableStringify(payload), repairs };
}

/**
 * One Chat Completions message; undefined for an assistant message the API would refuse: no text
 * (blank text counts as none; thinking is never sent) and no tool calls (pi-ai skips it too).
 */
function openAiMessage(message: LlmMessage): Json | undefined {
  if (message.role === "user") {
    const blocks = contentBlocks(message.content);
    if (blocks.every((b) => b.type === "text"))
      return { role: "user", content: joinText(blocks as TextContent[]) };
    return { role: "user", content: blocks.map(userPart) };
  }
  if (message.role === "toolResult") {
    return {
      role: "tool",
      tool_call_id: openAiToolId(message.toolCallId),
      content: joinText(textOnly(message.content)) || "(no output)",
    };
  }
  const text = joinText(
    message.content.filter((b): b is TextContent => b.type === "text" && b.text.trim().length > 0),
  );
  const calls = message.content.filter((b): b is ToolCallContent => b.type === "toolCall");
  if (!text && calls.length === 0) return undefined;
  const out: Json = { role: "assistant", content: text || null };
  if (calls.length > 0) {
    out.tool_calls = calls.map((call) => ({
      id: openAiToolId(call.id),
      type: "function",
      function: { name: call.name, arguments: stableStringify(call.arguments ?? {}) },
    }));
  }
  return out;
}

/**
 * Chat Completions takes tool call ids of at most 40 characters. Those of the Responses API
 * (`call_…|fc_…`, hundreds of characters, through pi sessions) keep their call id, as pi-ai's
 * openai-completions provider makes them; any other long id is cut to 40, as pi does for OpenAI.
 */
export function openAiToolId(id: string): string {
  if (id.includes("|")) return (id.split("|")[0] ?? "").replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 40);
  return id.length > 40 ? id.slice(0, 40) : id;
}

function userPart(block: TextContent | ImageContent): Json {
  if (block.type === "text") return { type: "text", text: block.text };
  return { type: "image_url", image_url: { url: `data:${block.mimeType};base64,${block.data}` } };
}

function textOnly(blocks: (TextContent | ImageContent)[]): TextContent[] {
  return blocks.filter((b): b is TextContent => b.type === "text");
}

function joinText(blocks: TextContent[]): string {
  return blocks.map((b) => b.text).join("\n");
}

function reasoningEffort(level: string): string {
  if (level === "minimal" || level === "low") return "low";
  if (level === "high" || level === "xhigh") return "high";
  return "medium";
}
