import type { ImageContent, TextContent, ThinkingContent, ToolCallContent } from "../core/messages.js";

/**
 * Codex's (OpenAI Responses API) items in pi's content shapes: the block-level half of the Codex
 * importer (`codex.ts`). Shapes follow `codex-rs/protocol/src/models.rs` (ResponseItem, ContentItem,
 * FunctionCallOutputPayload) across the versions that wrote rollouts.
 */
export type Raw = Record<string, unknown>;

export function isObject(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/** Milliseconds of an ISO timestamp, as pi's messages carry it; undefined when unreadable. */
export function ms(timestamp: string | undefined): number | undefined {
  if (timestamp === undefined) return undefined;
  const value = Date.parse(timestamp);
  return Number.isNaN(value) ? undefined : value;
}

/**
 * User-role messages Codex writes itself rather than the person typing: instructions (AGENTS.md,
 * skills) and the state it restates each turn (environment, collaboration mode, context updates).
 * Codex's own history code treats these as "not user intent" (`is_contextual_user_message`).
 */
const HARNESS_PREFIXES = [
  "# agents.md instructions for ",
  "<user_instructions>",
  "<environment_context>",
  "<collaboration_mode>",
  "<context_update>",
  "<permissions instructions>",
  "<skill",
];

export function isHarnessText(text: string): boolean {
  const head = text.trimStart().slice(0, 40).toLowerCase();
  return HARNESS_PREFIXES.some((prefix) => head.startsWith(prefix));
}

/** The plain text of a Responses message's content items (input_text, output_text, ...). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(isObject)
    .map((item) => (typeof item.text === "string" ? item.text : ""))
    .filter((text) => text.length > 0)
    .join("\n");
}

/** A data: URL as pi's image block; anything else is kept as text naming the URL. */
function imageBlock(url: unknown): TextContent | ImageContent {
  const match = typeof url === "string" ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
  if (match) return { type: "image", mimeType: match[1] as string, data: match[2] as string };
  return { type: "text", text: `[image: ${String(url)}]` };
}

/** A user message's (or a tool output's) content items as pi user content. */
export function toUserBlocks(content: unknown): Array<TextContent | ImageContent> {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter(isObject).map((item): TextContent | ImageContent => {
    if (item.type === "input_image") return imageBlock(item.image_url);
    if (typeof item.text === "string") return { type: "text", text: item.text };
    return { type: "text", text: JSON.stringify(item) };
  });
}

/** An assistant message's output_text items; the `phase` (commentary / final_answer) rides along. */
export function toAssistantTextBlocks(payload: Raw): TextContent[] {
  const phase = str(payload.phase);
  const blocks = toUserBlocks(payload.content).filter((b): b is TextContent => b.type === "text");
  return phase ? blocks.map((b) => ({ ...b, phase })) : blocks;
}

/**
 * A reasoning item as a thinking block, the way pi's openai-responses provider stores one: the
 * readable text (summary, else raw reasoning content) and, when the item carries encrypted
 * reasoning, the item itself as `thinkingSignature` so pi can hand it back to the same model.
 * Undefined when the item has neither readable text nor encrypted content.
 */
export function toThinkingBlock(payload: Raw): ThinkingContent | undefined {
  const readable = (items: unknown) => (Array.isArray(items) ? items : []).map(contentText1).filter(Boolean);
  const summary = readable(payload.summary).join("\n\n");
  const thinking = summary || readable(payload.content).join("\n\n");
  const encrypted = str(payload.encrypted_content);
  if (!thinking && !encrypted) return undefined;
  const block: ThinkingContent = { type: "thinking", thinking };
  if (encrypted) block.thinkingSignature = JSON.stringify(payload);
  return block;
}

function contentText1(item: unknown): string {
  return isObject(item) && typeof item.text === "string" ? item.text : "";
}

/** What a tool-call item names and is called with, for the kinds of call Codex records. */
export function toToolCall(payload: Raw): ToolCallContent | undefined {
  const type = payload.type;
  const id = str(payload.call_id) ?? str(payload.id);
  if (!id) return undefined;
  if (type === "function_call") {
    const call: ToolCallContent = {
      type: "toolCall",
      id,
      name: String(payload.name ?? ""),
      arguments: parseArguments(payload.arguments),
    };
    if (str(payload.namespace)) call.namespace = payload.namespace;
    return call;
  }
  if (type === "custom_tool_call")
    // A freeform tool (apply_patch): its input is raw text, not JSON.
    return {
      type: "toolCall",
      id,
      name: String(payload.name ?? ""),
      arguments: { input: payload.input ?? "" },
    };
  if (type === "local_shell_call")
    return {
      type: "toolCall",
      id,
      name: "local_shell",
      arguments: isObject(payload.action) ? payload.action : {},
    };
  if (type === "tool_search_call")
    return { type: "toolCall", id, name: "tool_search", arguments: parseArguments(payload.arguments) };
  return undefined;
}

/** Arguments are JSON text in a string; text that is not a JSON object is kept whole under `_raw`. */
function parseArguments(value: unknown): Record<string, unknown> {
  if (isObject(value)) return value;
  if (typeof value !== "string") return value === undefined ? {} : { _raw: value };
  try {
    const parsed: unknown = JSON.parse(value);
    if (isObject(parsed)) return parsed;
  } catch {
    // not JSON: kept as it is below
  }
  return { _raw: value };
}

export const TOOL_CALL_TYPES = new Set([
  "function_call",
  "custom_tool_call",
  "local_shell_call",
  "tool_search_call",
]);
export const TOOL_OUTPUT_TYPES = new Set([
  "function_call_output",
  "custom_tool_call_output",
  "tool_search_output",
]);

/**
 * A tool output's content and whether it failed. `output` is a string (most versions; early shell
 * calls put `{"output", "metadata": {"exit_code"}}` JSON in it), a list of content items (MCP
 * results, images), or `{content, success}`.
 */
export function toToolOutput(payload: Raw): { content: Array<TextContent | ImageContent>; isError: boolean } {
  if (payload.type === "tool_search_output")
    return { content: [{ type: "text", text: JSON.stringify(payload.tools ?? []) }], isError: false };
  const output = payload.output;
  if (typeof output === "string")
    return { content: [{ type: "text", text: output }], isError: exitFailed(output) };
  if (Array.isArray(output)) return { content: toUserBlocks(output), isError: false };
  if (isObject(output)) {
    const text = typeof output.content === "string" ? output.content : JSON.stringify(output);
    const items = Array.isArray(output.content_items) ? toUserBlocks(output.content_items) : undefined;
    return { content: items ?? [{ type: "text", text }], isError: output.success === false };
  }
  return { content: [], isError: false };
}

/** Early shell outputs: a JSON string whose metadata holds the exit code. */
function exitFailed(output: string): boolean {
  if (!output.startsWith("{")) return false;
  try {
    const parsed: unknown = JSON.parse(output);
    const metadata = isObject(parsed) ? parsed.metadata : undefined;
    return isObject(metadata) && typeof metadata.exit_code === "number" && metadata.exit_code !== 0;
  } catch {
    return false;
  }
}

/** A token_count event's usage of the last model call, in pi's usage shape (input excludes cached). */
export function toUsage(info: unknown): Record<string, unknown> | undefined {
  if (!isObject(info) || !isObject(info.last_token_usage)) return undefined;
  const u = info.last_token_usage;
  const n = (v: unknown) => (typeof v === "number" ? v : 0);
  const cacheRead = n(u.cached_input_tokens);
  const input = Math.max(0, n(u.input_tokens) - cacheRead);
  const output = n(u.output_tokens);
  return {
    input,
    output,
    cacheRead,
    cacheWrite: 0,
    totalTokens: n(u.total_tokens) || input + cacheRead + output,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** Codex's reasoning effort as pi's thinking level ("none" is pi's "off"). */
export function thinkingLevelOf(effort: string): string {
  return effort === "none" ? "off" : effort;
}
