import type { AssistantMessage, ContentBlock, StopReason, ToolResultMessage } from "../core/messages.js";

/**
 * Claude Code's (Anthropic API) message content in pi's shapes: the block-level half of the
 * Claude Code importer (`claude-code.ts`).
 */
export type Raw = Record<string, unknown>;

export function assistantMeta(
  message: Raw,
  record: Raw,
): Pick<AssistantMessage, "provider" | "model"> & Record<string, unknown> {
  const usage = (message.usage ?? {}) as Raw;
  const n = (v: unknown) => (typeof v === "number" ? v : 0);
  const input = n(usage.input_tokens);
  const output = n(usage.output_tokens);
  const cacheRead = n(usage.cache_read_input_tokens);
  const cacheWrite = n(usage.cache_creation_input_tokens);
  return {
    api: "anthropic-messages",
    provider: "anthropic",
    model: str(message.model) ?? "unknown",
    usage: {
      input,
      output,
      cacheRead,
      cacheWrite,
      totalTokens: input + output + cacheRead + cacheWrite,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    timestamp: ms(record.timestamp),
  };
}

/**
 * pi's stop reason for a reply. Claude Code writes `stop_reason: null` on every line of a reply but
 * (at best) the last, and newer versions on the last one too: then the content says it, a reply
 * that ends in a tool call stopped to run it.
 */
export function stopReasonOf(reason: unknown, content: readonly ContentBlock[]): StopReason {
  if (reason === "tool_use") return "toolUse";
  if (reason === "max_tokens" || reason === "model_context_window_exceeded") return "length";
  if (typeof reason === "string") return "stop";
  return content[content.length - 1]?.type === "toolCall" ? "toolUse" : "stop";
}

/**
 * The content of a user line: `message.content`, or the message itself when a line gives it as a
 * plain string. Undefined when the line carries none (it is then kept as a record, not as an
 * empty message).
 */
export function userContentOf(record: Raw): string | Raw[] | undefined {
  const message = record.message;
  if (typeof message === "string") return message;
  const content = (message as Raw | undefined)?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((b) => (typeof b === "string" ? { type: "text", text: b } : b));
  return undefined;
}

export function toAssistantBlocks(content: unknown, toolNames: Map<string, string>): ContentBlock[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  if (!Array.isArray(content)) return [];
  return (content as Array<Raw | string>).map((block): ContentBlock => {
    if (typeof block === "string") return { type: "text", text: block };
    if (block.type === "text") return { type: "text", text: String(block.text ?? "") };
    if (block.type === "thinking")
      return { type: "thinking", thinking: String(block.thinking ?? ""), thinkingSignature: block.signature };
    if (block.type === "redacted_thinking")
      // pi's own shape for it (pi-ai's Anthropic provider makes the same block from the stream):
      // the opaque payload rides in the signature, and pi hands it back as redacted_thinking.
      return {
        type: "thinking",
        thinking: "[Reasoning redacted]",
        thinkingSignature: String(block.data ?? ""),
        redacted: true,
      };
    if (block.type === "tool_use") {
      const id = String(block.id ?? "");
      toolNames.set(id, String(block.name ?? ""));
      return {
        type: "toolCall",
        id,
        name: String(block.name ?? ""),
        arguments: (block.input ?? {}) as Record<string, unknown>,
      };
    }
    // Server tool blocks and newer kinds: kept as they are (unknown blocks survive).
    return block as unknown as ContentBlock;
  });
}

/** A `tool_result` block as pi's tool result message, named after its call. */
export function toToolResult(block: Raw, record: Raw, toolNames: Map<string, string>): ToolResultMessage {
  const toolCallId = String(block.tool_use_id ?? "");
  const content: ToolResultMessage["content"] =
    typeof block.content === "string" ? [{ type: "text", text: block.content }] : [];
  if (Array.isArray(block.content))
    for (const b of block.content as Raw[])
      content.push(toUserBlock(b) as ToolResultMessage["content"][number]);
  return {
    role: "toolResult",
    toolCallId,
    toolName: toolNames.get(toolCallId) ?? "unknown",
    content,
    isError: block.is_error === true,
    timestamp: ms(record.timestamp),
  };
}

export function toUserBlock(block: Raw | string): ContentBlock {
  if (typeof block === "string") return { type: "text", text: block };
  if (block.type === "image" && block.source && typeof block.source === "object") {
    const source = block.source as Raw;
    return { type: "image", data: String(source.data ?? ""), mimeType: String(source.media_type ?? "") };
  }
  if (block.type === "text") return { type: "text", text: String(block.text ?? "") };
  return block as unknown as ContentBlock;
}

export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as Raw[])
    .filter((b) => b.type === "text")
    .map((b) => String(b.text ?? ""))
    .join("\n");
}

export function parseObject(line: string): Raw | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Raw) : undefined;
  } catch {
    return undefined;
  }
}

export function str(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

export function ms(timestamp: unknown): number {
  const parsed = typeof timestamp === "string" ? Date.parse(timestamp) : Number.NaN;
  return Number.isNaN(parsed) ? 0 : parsed;
}
