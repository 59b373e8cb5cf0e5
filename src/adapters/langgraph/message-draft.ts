import type { BaseMessage } from "@langchain/core/messages";
import type { EntryDraft } from "../../core/entry.js";
import type { ContentBlock, ImageContent, TextContent } from "../../core/messages.js";
import {
  argumentsObject,
  assistantDraft,
  customDraft,
  customMessageDraft,
  imageFromDataUrl,
  jsonText,
  type ModelLabel,
  text,
  toolResultDraft,
  unknownCost,
  userDraft,
} from "../history/pi-messages.js";
import { keepText } from "../history/record-text.js";
import { FRAMEWORK, MESSAGE_CUSTOM_TYPE, type MessageRecord, SYSTEM_CUSTOM_TYPE } from "./records.js";
import type { StoredValue } from "./stored-value.js";

type Json = Record<string, unknown>;

/**
 * One LangChain message as one entry, in the shape the rest of sessiontree (and pi) reads: a human
 * message as a user message, an AI message as an assistant message with its text and one toolCall
 * block per tool call, a tool message as a toolResult, a system message as a custom message. The
 * message as the saver's serde wrote it is kept whole in the entry's `origin` (its text less what
 * pi's blocks already hold, see record-text.ts), and that is what the graph reads back.
 */
export function messageDraft(
  message: BaseMessage,
  stored: StoredValue,
  label: ModelLabel,
  toolNames: ReadonlyMap<string, string>,
): EntryDraft {
  const kept: StoredValue = { ...stored };
  const origin: MessageRecord = {
    framework: FRAMEWORK,
    kind: "message",
    ...(message.id === undefined ? {} : { id: message.id }),
    message: kept,
  };
  const draft = piDraft(message, label, toolNames, origin);
  if ("text" in stored) keepText(draft, kept, "text", stored.text);
  return draft;
}

/** The entry pi reads for a message, carrying `origin`. */
function piDraft(
  message: BaseMessage,
  label: ModelLabel,
  toolNames: ReadonlyMap<string, string>,
  origin: MessageRecord,
): EntryDraft {
  const fields = message as unknown as Json;
  switch (message.getType()) {
    case "human":
      return userDraft(userContent(message.content), origin);
    case "ai": {
      const calls = toolCalls(fields.tool_calls);
      const content: ContentBlock[] = [...textBlocks(message.content), ...calls];
      const stopReason = calls.length > 0 ? "toolUse" : "stop";
      return assistantDraft(content, modelOf(fields, label), stopReason, origin, usageOf(fields));
    }
    case "tool": {
      const callId = String(fields.tool_call_id ?? "");
      const name = typeof fields.name === "string" ? fields.name : (toolNames.get(callId) ?? "tool");
      return toolResultDraft(callId, name, userBlocks(message.content), fields.status === "error", origin);
    }
    case "system":
      return customMessageDraft(SYSTEM_CUSTOM_TYPE, plainText(message.content), origin);
    default:
      return customDraft(MESSAGE_CUSTOM_TYPE, origin);
  }
}

/** The tool names of an AI message's calls, by call id (a tool message may not name its tool). */
export function noteToolNames(message: BaseMessage, names: Map<string, string>): void {
  if (message.getType() !== "ai") return;
  const calls = (message as unknown as Json).tool_calls;
  if (!Array.isArray(calls)) return;
  for (const call of calls as Json[]) {
    if (typeof call.id === "string" && typeof call.name === "string") names.set(call.id, call.name);
  }
}

/** The response's model when the provider reported one, else the label the saver was given. */
function modelOf(fields: Json, label: ModelLabel): ModelLabel {
  const metadata = fields.response_metadata as Json | undefined;
  const name = metadata?.model_name ?? metadata?.model;
  return typeof name === "string" && name !== "" ? { ...label, model: name } : label;
}

/**
 * pi's usage from LangChain's `usage_metadata` (whose input count includes the cached tokens pi
 * counts apart), no cost (LangChain reports none); undefined when the message has none.
 */
function usageOf(fields: Json): Record<string, unknown> | undefined {
  const usage = fields.usage_metadata as Json | undefined;
  const input = usage?.input_tokens;
  const output = usage?.output_tokens;
  if (typeof input !== "number" || typeof output !== "number") return undefined;
  const details = usage?.input_token_details as Json | undefined;
  const cacheRead = typeof details?.cache_read === "number" ? details.cache_read : 0;
  const cacheWrite = typeof details?.cache_creation === "number" ? details.cache_creation : 0;
  return {
    input: Math.max(0, input - cacheRead - cacheWrite),
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output,
    cost: unknownCost(),
  };
}

function toolCalls(value: unknown): ContentBlock[] {
  if (!Array.isArray(value)) return [];
  return (value as Json[]).map((call) => ({
    type: "toolCall" as const,
    id: String(call.id ?? ""),
    name: String(call.name ?? ""),
    arguments: argumentsObject(call.args),
  }));
}

function userContent(content: BaseMessage["content"]): string | (TextContent | ImageContent)[] {
  return typeof content === "string" ? content : userBlocks(content);
}

function userBlocks(content: BaseMessage["content"]): (TextContent | ImageContent)[] {
  if (typeof content === "string") return [text(content)];
  return (content as Json[]).map((part) => {
    if (part.type === "text" && typeof part.text === "string") return text(part.text);
    const url = imageUrl(part);
    return (url && imageFromDataUrl(url)) || text(jsonText(part));
  });
}

function textBlocks(content: BaseMessage["content"]): TextContent[] {
  if (typeof content === "string") return content === "" ? [] : [text(content)];
  return (content as Json[])
    .filter((part) => part.type === "text" && typeof part.text === "string" && part.text !== "")
    .map((part) => text(part.text as string));
}

function plainText(content: BaseMessage["content"]): string {
  return userBlocks(content)
    .map((block) => (block.type === "text" ? block.text : "[image]"))
    .join("\n");
}

/** An `image_url` part's URL (given as a string or as `{ url }`). */
function imageUrl(part: Json): string | undefined {
  if (part.type !== "image_url") return undefined;
  const value = part.image_url;
  if (typeof value === "string") return value;
  const url = (value as Json | undefined)?.url;
  return typeof url === "string" ? url : undefined;
}
