/**
 * Message shapes as pi writes them. Only what sessiontree reads is typed; every other field is
 * kept as-is (the index signature), so a round trip never loses data.
 */
export interface TextContent {
  type: "text";
  text: string;
  [key: string]: unknown;
}

export interface ImageContent {
  type: "image";
  data: string;
  mimeType: string;
  [key: string]: unknown;
}

export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  [key: string]: unknown;
}

export interface ToolCallContent {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  [key: string]: unknown;
}

export type ContentBlock = TextContent | ImageContent | ThinkingContent | ToolCallContent;

export interface UserMessage {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  timestamp?: number;
  [key: string]: unknown;
}

export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

/**
 * Token counts as pi writes them on assistant messages (cost in USD; 0 when unknown). A type, not
 * an interface, so it is also an assistant message's open `usage` record.
 */
export type Usage = {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
};

/** A usage record with nothing counted (pi requires one on every assistant message). */
export function zeroUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

export interface AssistantMessage {
  role: "assistant";
  content: ContentBlock[];
  provider: string;
  model: string;
  api?: string;
  usage?: Record<string, unknown>;
  stopReason?: StopReason | string;
  errorMessage?: string;
  timestamp?: number;
  [key: string]: unknown;
}

export interface ToolResultMessage {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  isError: boolean;
  details?: unknown;
  timestamp?: number;
  [key: string]: unknown;
}

/** pi's custom message (from `custom_message` entries, and migrated v2 `hookMessage`). */
export interface CustomMessage {
  role: "custom";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  display: boolean;
  details?: unknown;
  timestamp: number;
  [key: string]: unknown;
}

export interface BranchSummaryMessage {
  role: "branchSummary";
  summary: string;
  fromId: string;
  timestamp: number;
}

export interface CompactionSummaryMessage {
  role: "compactionSummary";
  summary: string;
  tokensBefore: number;
  timestamp: number;
}

/** Any other role pi or an extension writes (for example `bashExecution`); kept untouched. */
export interface OtherMessage {
  role: string;
  [key: string]: unknown;
}

export type AgentMessage =
  | UserMessage
  | AssistantMessage
  | ToolResultMessage
  | CustomMessage
  | BranchSummaryMessage
  | CompactionSummaryMessage;

/** What `appendMessage` accepts: summaries are entries of their own, never messages. */
export type AppendableMessage =
  | UserMessage
  | AssistantMessage
  | ToolResultMessage
  | CustomMessage
  | OtherMessage;

/** The plain text of a message's content, for listings and search. */
export function messageText(message: { content?: unknown }): string {
  const content = message.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (block && typeof block === "object" && (block as { type?: unknown }).type === "text") {
      const text = (block as { text?: unknown }).text;
      if (typeof text === "string") parts.push(text);
    }
  }
  return parts.join(" ");
}
