import type { ImageContent, TextContent, ThinkingContent } from "../../core/messages.js";
import type { ProviderRequest, Repair } from "../provider.js";
import { contentBlocks, type LlmMessage, toLlmMessages } from "./llm-messages.js";
import { stableStringify } from "./stable-json.js";

type Json = Record<string, unknown>;

const DEFAULT_MAX_TOKENS = 8192;
const THINKING_BUDGET: Record<string, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 32000,
};

/**
 * An Anthropic Messages request (streaming) for a projected context. Tool results ride in user
 * messages as `tool_result` blocks; consecutive user turns are merged (the API wants alternation);
 * thinking is sent back only with its signature (the API refuses unsigned thinking).
 */
export function anthropicPayload(request: ProviderRequest): { payload: Json; repairs: Repair[] } {
  const { messages, repairs } = toLlmMessages(request.messages);
  const out: Array<{ role: "user" | "assistant"; content: Json[] }> = [];
  for (const message of messages) {
    const role = message.role === "assistant" ? "assistant" : "user";
    const blocks = anthropicBlocks(message, request.model);
    if (blocks.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  let budget = THINKING_BUDGET[request.thinkingLevel];
  if (budget && !thinkingAllowed(out)) {
    // The open tool turn began without thinking (it was off, or the turn was cut and repaired):
    // the API wants one thinking mode per assistant turn, so this turn finishes with it off.
    budget = undefined;
    repairs.push({
      code: "thinking_off_for_turn",
      message:
        "Thinking is off for this request: the tool turn it continues did not start with a thinking block",
    });
  }
  const maxTokens = Math.max(request.maxTokens ?? DEFAULT_MAX_TOKENS, budget ? budget + 1024 : 0);
  const payload: Json = { model: request.model, max_tokens: maxTokens, messages: out, stream: true };
  if (request.systemPrompt) payload.system = request.systemPrompt;
  if (request.tools.length > 0) {
    payload.tools = request.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.parameters,
    }));
  }
  if (budget) payload.thinking = { type: "enabled", budget_tokens: budget };
  return { payload, repairs };
}

export function anthropicBody(request: ProviderRequest): { body: string; repairs: Repair[] } {
  const { payload, repairs } = anthropicPayload(request);
  return { body: stableStringify(payload), repairs };
}

/**
 * Anthropic's rule with thinking on: when the last user message carries tool results, the assistant
 * message they answer must start with a thinking (or redacted_thinking) block.
 */
function thinkingAllowed(messages: ReadonlyArray<{ role: string; content: Json[] }>): boolean {
  const last = messages[messages.length - 1];
  if (last?.role !== "user" || !last.content.some((b) => b.type === "tool_result")) return true;
  const first = messages[messages.length - 2]?.content[0];
  return first?.type === "thinking" || first?.type === "redacted_thinking";
}

/** Anthropic accepts tool ids matching [a-zA-Z0-9_-]; other providers' ids are mapped, stably. */
export function anthropicToolId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
}

function anthropicBlocks(message: LlmMessage, model: string): Json[] {
  if (message.role === "user") return contentBlocks(message.content).map(userBlock).filter(nonEmpty);
  if (message.role === "toolResult") {
    // A tool that printed nothing still answers its call: with a word, as the API refuses empty text.
    const content = message.content.map(userBlock).filter(nonEmpty);
    return [
      {
        type: "tool_result",
        tool_use_id: anthropicToolId(message.toolCallId),
        content: content.length > 0 ? content : [{ type: "text", text: "(no output)" }],
        is_error: message.isError,
      },
    ];
  }
  // Thinking goes back signed only to the model that signed it (the API refuses another's
  // signature, and a writer of another API may have put anything in the field); from any other
  // model its text is plain text and redacted thinking is dropped, as pi-ai's transformMessages does.
  const sameModel = message.api === ANTHROPIC_API && message.model === model;
  const blocks: Json[] = [];
  for (const block of message.content) {
    if (block.type === "text" && block.text.trim()) blocks.push({ type: "text", text: block.text });
    else if (block.type === "thinking") blocks.push(...thinkingBlocks(block, sameModel));
    else if (block.type === "toolCall") {
      blocks.push({
        type: "tool_use",
        id: anthropicToolId(block.id),
        name: block.name,
        input: block.arguments ?? {},
      });
    }
  }
  return blocks;
}

/** The `api` of the assistant messages this provider (and pi-ai's) writes. */
const ANTHROPIC_API = "anthropic-messages";

function thinkingBlocks(block: ThinkingContent, sameModel: boolean): Json[] {
  const signature = typeof block.thinkingSignature === "string" ? block.thinkingSignature : undefined;
  if (block.redacted === true)
    return sameModel && signature ? [{ type: "redacted_thinking", data: signature }] : [];
  if (sameModel && signature) return [{ type: "thinking", thinking: block.thinking, signature }];
  if (sameModel || typeof block.thinking !== "string" || !block.thinking.trim()) return [];
  return [{ type: "text", text: block.thinking }];
}

function userBlock(block: TextContent | ImageContent): Json {
  if (block.type === "text") return { type: "text", text: block.text };
  return { type: "image", source: { type: "base64", media_type: block.mimeType, data: block.data } };
}

function nonEmpty(block: Json): boolean {
  // The API refuses text blocks without a non-whitespace character.
  return block.type !== "text" || (typeof block.text === "string" && block.text.trim().length > 0);
}
