import type { AgentInputItem } from "@openai/agents";
import type { EntryDraft } from "../../core/entry.js";
import type { ImageContent, TextContent } from "../../core/messages.js";
import { encodeBytes, hasBytes } from "../history/binary-json.js";
import type { Origin } from "../history/origin.js";
import {
  argumentsObject,
  assistantDraft,
  customDraft,
  customMessageDraft,
  imageFromDataUrl,
  jsonText,
  type ModelLabel,
  parseJsonText,
  text,
  toolResultDraft,
  userDraft,
} from "../history/pi-messages.js";
import { keepText } from "../history/record-text.js";

export const FRAMEWORK = "openai-agents";
/** The custom type of items kept as `custom` entries (outside the model's context in pi). */
export const ITEM_CUSTOM_TYPE = "openai-agents.item";
export const SYSTEM_CUSTOM_TYPE = "openai-agents.system";
/** The origin key of an entry holding several items (parallel function calls), as a JSON array. */
export const GROUP_KEY = "items";

type Json = Record<string, unknown>;

/**
 * The entries for `items`, in order: one per item, except that consecutive function calls (the
 * parallel tool calls of one model response) are one assistant message with a toolCall block
 * each, as the model gave them. pi answers an assistant message's calls with the tool results that
 * follow it: with a message per call, resumed in pi, the first call would get pi's "No result
 * provided" error and its real result would come after the second call (Anthropic refuses that).
 */
export function itemsToDrafts(items: readonly AgentInputItem[], label: ModelLabel): EntryDraft[] {
  const drafts: EntryDraft[] = [];
  for (let start = 0; start < items.length; ) {
    let end = start + 1;
    if (isFunctionCall(items[start])) while (end < items.length && isFunctionCall(items[end])) end++;
    const run = items.slice(start, end);
    drafts.push(run.length > 1 ? callsDraft(run, label) : itemToDraft(run[0] as AgentInputItem, label));
    start = end;
  }
  return drafts;
}

function isFunctionCall(item: AgentInputItem | undefined): boolean {
  return (item as Json | undefined)?.type === "function_call" && !hasBytes(item);
}

/** Function calls as one assistant message; the items kept whole, as a JSON array, under `GROUP_KEY`. */
function callsDraft(items: readonly AgentInputItem[], label: ModelLabel): EntryDraft {
  const origin: Origin = { framework: FRAMEWORK };
  const calls = items.map((item) => toolCallOf(item as unknown as Json));
  const draft = assistantDraft(calls, label, "toolUse", origin);
  keepText(draft, origin, GROUP_KEY, JSON.stringify(items));
  return draft;
}

/**
 * One item as one entry, in the shape the rest of sessiontree reads: user and assistant messages
 * as messages, a function call as an assistant message with one toolCall block, its output as a
 * toolResult message, a system message as a custom_message. Items pi has no place for (reasoning,
 * hosted and computer tool calls, compaction markers…) are `custom` entries. The item itself is
 * kept whole in the entry's `origin`, as its JSON text less what pi's blocks already hold (see
 * record-text.ts), and that is what `getItems` returns.
 */
export function itemToDraft(item: AgentInputItem, label: ModelLabel): EntryDraft {
  // Bytes (image or file data given as a Uint8Array) are written as base64 and marked, so they
  // come back as bytes; every other item is stored as it is.
  const bytes = hasBytes(item);
  const origin: Origin = bytes ? { framework: FRAMEWORK, bytes } : { framework: FRAMEWORK };
  const draft = piDraft(item as unknown as Json, label, origin);
  keepText(draft, origin, "item", JSON.stringify(bytes ? encodeBytes(item) : item));
  return draft;
}

/** The entry pi reads for an item, carrying `origin` (which gets the item once the entry is made). */
function piDraft(record: Json, label: ModelLabel, origin: Origin): EntryDraft {
  const type = record.type ?? "message";
  if (type === "message" && record.role === "user") return userDraft(userContent(record.content), origin);
  if (type === "message" && record.role === "assistant")
    return assistantDraft(assistantContent(record.content), label, "stop", origin);
  if (type === "message" && record.role === "system")
    return customMessageDraft(SYSTEM_CUSTOM_TYPE, contentText(record.content), origin);
  if (type === "function_call") return assistantDraft([toolCallOf(record)], label, "toolUse", origin);
  if (type === "function_call_result")
    return toolResultDraft(
      String(record.callId),
      String(record.name),
      outputContent(record.output),
      false,
      origin,
    );
  return customDraft(ITEM_CUSTOM_TYPE, origin);
}

function toolCallOf(record: Json) {
  const args = argumentsObject(parseJsonText(String(record.arguments ?? "")));
  return { type: "toolCall" as const, id: String(record.callId), name: String(record.name), arguments: args };
}

function userContent(content: unknown): string | (TextContent | ImageContent)[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part: Json) => {
    if (part.type === "input_text") return text(String(part.text));
    if (part.type === "input_image" && typeof part.image === "string")
      return imageFromDataUrl(part.image) ?? text(`[image: ${part.image}]`);
    if (part.type === "input_file") return text(`[file${part.filename ? `: ${part.filename}` : ""}]`);
    if (part.type === "audio") return text(`[audio${part.transcript ? `: ${part.transcript}` : ""}]`);
    return text(`[${String(part.type)}]`);
  });
}

function assistantContent(content: unknown): TextContent[] {
  if (typeof content === "string") return [text(content)];
  if (!Array.isArray(content)) return [];
  return content.map((part: Json) => {
    if (part.type === "output_text") return text(String(part.text));
    if (part.type === "refusal") return text(String(part.refusal));
    if (part.type === "audio") return text(String(part.transcript ?? "[audio]"));
    return text(`[${String(part.type)}]`);
  });
}

function contentText(content: unknown): string {
  const blocks = userContent(content);
  if (typeof blocks === "string") return blocks;
  return blocks.map((block) => (block.type === "text" ? block.text : "[image]")).join("\n");
}

/** A function's output as toolResult blocks: text as text, a `data:` image as an image. */
function outputContent(output: unknown): (TextContent | ImageContent)[] {
  if (typeof output === "string") return [text(output)];
  const parts = Array.isArray(output) ? output : [output];
  return parts.map((part: Json) => {
    if ((part?.type === "text" || part?.type === "input_text") && typeof part.text === "string")
      return text(part.text);
    const image = part?.type === "image" || part?.type === "input_image" ? part.image : undefined;
    const url = typeof image === "string" ? image : undefined;
    return (url && imageFromDataUrl(url)) || text(jsonText(part));
  });
}
