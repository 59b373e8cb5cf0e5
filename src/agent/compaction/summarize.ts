import { SessionTreeError } from "../../core/errors.js";
import type { AgentMessage, AssistantMessage } from "../../core/messages.js";
import { type LlmMessage, toLlmMessages } from "../convert/llm-messages.js";
import type { Provider, ProviderRequest, ThinkingLevel } from "../provider.js";

export const SUMMARY_SYSTEM_PROMPT =
  "You summarize a conversation between a user and an AI assistant so that another model can continue the work. " +
  "Do not continue the conversation and do not answer its questions; output only the summary.";

const SUMMARY_INSTRUCTIONS = `Summarize the conversation above as a checkpoint with these sections:
## Goal
## Constraints & Preferences
## Progress (Done / In Progress / Blocked)
## Key Decisions
## Next Steps
## Critical Context
Keep exact file paths, function names, identifiers and error messages.`;

const UPDATE_INSTRUCTIONS = `The conversation above is NEW since the summary in <previous-summary>. Produce one updated
summary in the same sections: keep everything still relevant from the previous summary, add the new
progress, decisions and context. Keep exact file paths, function names, identifiers and error messages.`;

const BRANCH_INSTRUCTIONS = `The conversation above is a branch the user is leaving. Summarize what was tried there, what
was learned and what state it reached, so the conversation can continue elsewhere with that knowledge.`;

/** A conversation as plain text in tags, so the summarizing model reads it instead of continuing it. */
export function serializeConversation(messages: readonly AgentMessage[]): string {
  const parts: string[] = [];
  for (const m of toLlmMessages(messages).messages) parts.push(...describe(m));
  return parts.join("\n\n");
}

function describe(m: LlmMessage): string[] {
  if (m.role === "user") {
    const text =
      typeof m.content === "string"
        ? m.content
        : m.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    return text ? [`[User]: ${text}`] : [];
  }
  if (m.role === "toolResult") {
    const text = m.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    return text ? [`[Tool result]: ${text.length > 2000 ? `${text.slice(0, 2000)}…` : text}`] : [];
  }
  const out: string[] = [];
  const blocks = (m as AssistantMessage).content;
  const thinking = blocks.flatMap((b) => (b.type === "thinking" ? [b.thinking] : []));
  const text = blocks.flatMap((b) => (b.type === "text" ? [b.text] : []));
  const calls = blocks.flatMap((b) =>
    b.type === "toolCall" ? [`${b.name}(${JSON.stringify(b.arguments)})`] : [],
  );
  if (thinking.length) out.push(`[Assistant thinking]: ${thinking.join("\n")}`);
  if (text.length) out.push(`[Assistant]: ${text.join("\n")}`);
  if (calls.length) out.push(`[Assistant tool calls]: ${calls.join("; ")}`);
  return out;
}

export type SummaryKind = "compaction" | "turn-prefix" | "branch";

export interface SummarizeOptions {
  provider: Provider;
  model: string;
  thinkingLevel?: ThinkingLevel;
  previousSummary?: string;
  customInstructions?: string;
  signal?: AbortSignal;
}

/**
 * Asks the provider for a summary of `messages`. A provider error, a stream cut short or an empty
 * answer is a thrown `provider_error`; there is no empty summary. Callers do not ask about nothing
 * (`serializeConversation` empty): that is theirs to check.
 */
export async function summarize(
  messages: readonly AgentMessage[],
  kind: SummaryKind,
  options: SummarizeOptions,
): Promise<string> {
  let prompt = `<conversation>\n${serializeConversation(messages)}\n</conversation>\n\n`;
  if (options.previousSummary)
    prompt += `<previous-summary>\n${options.previousSummary}\n</previous-summary>\n\n`;
  prompt +=
    kind === "branch"
      ? BRANCH_INSTRUCTIONS
      : options.previousSummary
        ? UPDATE_INSTRUCTIONS
        : SUMMARY_INSTRUCTIONS;
  if (options.customInstructions) prompt += `\n\nAdditional focus: ${options.customInstructions}`;
  const request: ProviderRequest = {
    model: options.model,
    systemPrompt: SUMMARY_SYSTEM_PROMPT,
    messages: [{ role: "user", content: [{ type: "text", text: prompt }] }],
    tools: [],
    thinkingLevel: options.thinkingLevel ?? "off",
    maxTokens: 8192,
  };
  let text = "";
  let finished = false;
  for await (const event of options.provider.stream(request, options.signal)) {
    if (event.type === "text_delta") text += event.delta;
    else if (event.type === "error") throw summaryError(`Summarization failed: ${event.message}`, kind);
    else if (event.type === "done") {
      if (event.stopReason === "error" || event.stopReason === "aborted")
        throw summaryError(`Summarization failed: ${event.errorMessage ?? event.stopReason}`, kind);
      finished = true;
    }
  }
  if (!finished) throw summaryError("Summarization failed: the provider stream ended early", kind);
  // An empty summary would replace history with nothing: it is a failure, never written.
  if (!text.trim()) throw summaryError("Summarization failed: the model returned an empty summary", kind);
  return text.trim();
}

function summaryError(message: string, kind: SummaryKind): SessionTreeError {
  return new SessionTreeError("provider_error", message, { details: { kind } });
}
