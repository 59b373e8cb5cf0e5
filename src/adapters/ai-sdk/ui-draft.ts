import type { UIMessage } from "ai";
import type { EntryDraft } from "../../core/entry.js";
import type { ContentBlock, ImageContent, TextContent, ToolCallContent } from "../../core/messages.js";
import type { Origin } from "../history/origin.js";
import {
  argumentsObject,
  assistantDraft,
  customMessageDraft,
  imageFromDataUrl,
  jsonText,
  type ModelLabel,
  text,
  toolResultDraft,
  userDraft,
} from "../history/pi-messages.js";
import { keepText } from "../history/record-text.js";

export const FRAMEWORK = "ai-sdk";
export const SYSTEM_CUSTOM_TYPE = "ai-sdk.system";

type Part = UIMessage["parts"][number];
type ToolPart = Part & {
  toolCallId: string;
  state: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
};

/**
 * A UIMessage as the entries pi reads: a user message; a system message as a custom_message; an
 * assistant message as, per step (parts between `step-start`s), an assistant message holding its
 * reasoning, text and tool calls, then one toolResult per tool that answered. The first entry keeps
 * the whole UIMessage in its origin (`partial` when the stream did not complete), as its JSON text
 * less what that entry's pi blocks already hold (see record-text.ts); the others name it
 * (`partOf`), so the conversation reads back as exactly the messages saved.
 */
export function uiMessageToDrafts(message: UIMessage, label: ModelLabel, partial: boolean): EntryDraft[] {
  const first: Origin = partial ? { framework: FRAMEWORK, partial } : { framework: FRAMEWORK };
  const drafts = piDrafts(message, label, partial, first);
  keepText(drafts[0] as EntryDraft, first, "message", JSON.stringify(message));
  return drafts;
}

/** The entries pi reads for a message, the first carrying `first` (the others name the message). */
function piDrafts(message: UIMessage, label: ModelLabel, partial: boolean, first: Origin): EntryDraft[] {
  const rest: Origin = { framework: FRAMEWORK, partOf: message.id };
  if (message.role === "user") return [userDraft(userContent(message.parts), first)];
  if (message.role === "system")
    return [customMessageDraft(SYSTEM_CUSTOM_TYPE, partsText(message.parts), first)];
  const drafts: EntryDraft[] = [];
  const steps = splitSteps(message.parts);
  steps.forEach((step, index) => {
    const last = index === steps.length - 1;
    const calls = step.filter(isToolPart);
    const content = step.flatMap(assistantBlock);
    if (content.length === 0 && !(last && drafts.length === 0)) return;
    const stopReason = last && partial ? "aborted" : calls.length > 0 ? "toolUse" : "stop";
    drafts.push(assistantDraft(content, label, stopReason, drafts.length === 0 ? first : rest));
    for (const call of calls) {
      const result = toolResult(call, rest);
      if (result) drafts.push(result);
    }
  });
  return drafts;
}

/** Parts grouped by step; a message without `step-start` parts is one step. */
function splitSteps(parts: Part[]): Part[][] {
  const steps: Part[][] = [[]];
  for (const part of parts) {
    if (part.type === "step-start") {
      if ((steps.at(-1) as Part[]).length > 0) steps.push([]);
    } else (steps.at(-1) as Part[]).push(part);
  }
  return steps;
}

export function isToolPart(part: Part): part is ToolPart {
  return part.type === "dynamic-tool" || part.type.startsWith("tool-");
}

function toolName(part: ToolPart): string {
  return part.type === "dynamic-tool"
    ? String((part as { toolName?: unknown }).toolName)
    : part.type.slice(5);
}

function assistantBlock(part: Part): ContentBlock[] {
  if (part.type === "text") return [text(part.text)];
  if (part.type === "reasoning") return [{ type: "thinking", thinking: part.text }];
  if (isToolPart(part)) {
    const call: ToolCallContent = {
      type: "toolCall",
      id: part.toolCallId,
      name: toolName(part),
      arguments: argumentsObject(part.input),
    };
    return [call];
  }
  return [];
}

function toolResult(part: ToolPart, origin: Origin): EntryDraft | undefined {
  const name = toolName(part);
  if (part.state === "output-available")
    return toolResultDraft(part.toolCallId, name, [text(jsonText(part.output))], false, origin);
  if (part.state === "output-error")
    return toolResultDraft(part.toolCallId, name, [text(String(part.errorText ?? "error"))], true, origin);
  if (part.state === "output-denied")
    return toolResultDraft(part.toolCallId, name, [text("The user denied this tool call.")], true, origin);
  return undefined;
}

function userContent(parts: Part[]): string | (TextContent | ImageContent)[] {
  const blocks = parts.flatMap((part): (TextContent | ImageContent)[] => {
    if (part.type === "text") return [text(part.text)];
    if (part.type === "file") {
      const image = part.mediaType.startsWith("image/") ? imageFromDataUrl(part.url) : undefined;
      return [image ?? text(`[file${part.filename ? `: ${part.filename}` : ""}]`)];
    }
    return [];
  });
  const only = blocks[0];
  return blocks.length === 1 && only?.type === "text" ? only.text : blocks;
}

function partsText(parts: Part[]): string {
  return parts
    .map((part) => (part.type === "text" ? part.text : ""))
    .filter((t) => t !== "")
    .join("\n");
}

/** Whether a message was still being streamed: a text, reasoning or tool input part not finished. */
export function hasUnfinishedParts(message: UIMessage): boolean {
  return message.parts.some((part) => {
    const state = (part as { state?: unknown }).state;
    return state === "streaming" || state === "input-streaming";
  });
}
