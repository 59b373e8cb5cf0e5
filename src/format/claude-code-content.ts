import type { AssistantMessage, ContentBlock } from "../core/messages.js";

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
    stopReason: stopReason(message.stop_reason),
    timestamp: ms(record.timestamp),
  };
}

function stopReason(reason: unknown): string {
  if (reason === "tool_use") return "toolUse";
  if (reason === "max_tokens") return "length";
  return "stop";
}

export function toAssistantBlocks(content: unknown, toolNames: Map<string, string>): ContentBlock[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) return [];
  return (content as Raw[]).map((block): ContentBlock => {
    if (block.type === "text") return { type: "text", text: String(block.text ?? "") };
    if (block.type === "thinking")
      return { type: "thinking", thinking: String(block.thinking ?? ""), thinkingSignature: block.signature };
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
    // redacted_thinking, server tool blocks, ...: kept as they are (unknown blocks survive).
    return block as unknown as ContentBlock;
  });
}

export function toUserBlock(block: Raw): ContentBlock {
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
