import type { EntryDraft } from "../../core/entry.js";
import type {
  AssistantMessage,
  ContentBlock,
  ImageContent,
  TextContent,
  ToolResultMessage,
  UserMessage,
} from "../../core/messages.js";
import { ORIGIN_KEY, type Origin } from "./origin.js";

/**
 * The provider and model an adapter's assistant messages are labelled with. The frameworks do not
 * put the model on each item, so the caller says it (pi shows it, and restores it on resume).
 */
export interface ModelLabel {
  provider: string;
  model: string;
  /** pi's API name for the provider ("openai-responses", "openai-completions"…). */
  api?: string;
}

export const UNKNOWN_MODEL: ModelLabel = { provider: "unknown", model: "unknown" };

export function userDraft(content: UserMessage["content"], origin: Origin): EntryDraft {
  const message: UserMessage = { role: "user", content, timestamp: Date.now(), [ORIGIN_KEY]: origin };
  return { type: "message", message };
}

/**
 * The usage of a reply the framework reported none for: every count null. `sessiontree stats`
 * counts a usage with no numeric token count as unknown (a zero would read as "$0"), while pi,
 * which requires a usage object with a cost on every assistant message, adds null as 0 in its
 * footer and its context estimate, exactly as it does a zero.
 */
export function unknownUsage(): Record<string, unknown> {
  return {
    input: null,
    output: null,
    cacheRead: null,
    cacheWrite: null,
    totalTokens: null,
    cost: unknownCost(),
  };
}

/** A cost not known (the frameworks report tokens, not prices): `stats` says "cost unknown". */
export function unknownCost(): Record<string, null> {
  return { input: null, output: null, cacheRead: null, cacheWrite: null, total: null };
}

/** An assistant message; `usage` is what the framework reported, unknown when it reported none. */
export function assistantDraft(
  content: ContentBlock[],
  label: ModelLabel,
  stopReason: AssistantMessage["stopReason"],
  origin: Origin,
  usage?: Record<string, unknown>,
): EntryDraft {
  const message: AssistantMessage = {
    role: "assistant",
    content,
    ...(label.api === undefined ? {} : { api: label.api }),
    provider: label.provider,
    model: label.model,
    usage: usage ?? unknownUsage(),
    stopReason,
    timestamp: Date.now(),
    [ORIGIN_KEY]: origin,
  };
  return { type: "message", message };
}

export function toolResultDraft(
  toolCallId: string,
  toolName: string,
  content: (TextContent | ImageContent)[],
  isError: boolean,
  origin: Origin,
): EntryDraft {
  const message: ToolResultMessage = {
    role: "toolResult",
    toolCallId,
    toolName,
    content,
    isError,
    timestamp: Date.now(),
    [ORIGIN_KEY]: origin,
  };
  return { type: "message", message };
}

/** An entry the model's context does not hold (pi and sessiontree show it in the tree). */
export function customDraft(customType: string, origin: Origin): EntryDraft {
  return { type: "custom", customType, data: { [ORIGIN_KEY]: origin } };
}

/** A message pi's context holds as its own kind (it reaches pi's model as user text). */
export function customMessageDraft(customType: string, text: string, origin: Origin): EntryDraft {
  return {
    type: "custom_message",
    customType,
    content: text,
    display: true,
    details: { [ORIGIN_KEY]: origin },
  };
}

export function text(value: string): TextContent {
  return { type: "text", text: value };
}

/** An image block from a `data:` URL, or undefined for any other URL. */
export function imageFromDataUrl(url: string): ImageContent | undefined {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (!match) return undefined;
  return { type: "image", mimeType: match[1] as string, data: match[2] as string };
}

/** The `data:` URL an image block was made from (`imageFromDataUrl` undone, character for character). */
export function imageDataUrl(image: Pick<ImageContent, "mimeType" | "data">): string {
  return `data:${image.mimeType};base64,${image.data}`;
}

/** An object for a toolCall block's `arguments`: the parsed JSON object, else the value under `input`. */
export function argumentsObject(value: unknown): Record<string, unknown> {
  if (value !== null && typeof value === "object" && !Array.isArray(value))
    return value as Record<string, unknown>;
  return value === undefined ? {} : { input: value };
}

/** Parsed JSON text, or the text itself when it does not parse. */
export function parseJsonText(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** Text for a tool output that is not a string. */
export function jsonText(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? "");
}
