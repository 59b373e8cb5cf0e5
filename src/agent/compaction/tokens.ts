import type { AgentMessage, AssistantMessage } from "../../core/messages.js";

/**
 * Estimated tokens of one message: characters / 4, rounded up (pi's heuristic; it overestimates
 * for English and code, which errs on the side of compacting early). Images count 1,200 tokens.
 */
export function estimateTokens(message: AgentMessage | { role: string; [key: string]: unknown }): number {
  const m = message as Record<string, unknown>;
  let chars = 0;
  switch (m.role) {
    case "user":
    case "custom":
    case "toolResult":
      chars = contentChars(m.content);
      break;
    case "assistant":
      for (const block of (message as AssistantMessage).content) {
        if (block.type === "text") chars += block.text.length;
        else if (block.type === "thinking") chars += block.thinking.length;
        else if (block.type === "toolCall")
          chars += block.name.length + JSON.stringify(block.arguments).length;
      }
      break;
    case "branchSummary":
    case "compactionSummary":
      chars = String(m.summary ?? "").length;
      break;
    case "bashExecution":
      chars = String(m.command ?? "").length + String(m.output ?? "").length;
      break;
  }
  return Math.ceil(chars / 4);
}

function contentChars(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  let chars = 0;
  for (const block of content as Array<{ type?: string; text?: string }>) {
    if (block.type === "text" && block.text) chars += block.text.length;
    if (block.type === "image") chars += 4800;
  }
  return chars;
}

/**
 * Context size: the last successful assistant message's reported usage plus an estimate for
 * everything after it; a pure estimate when no usage was reported yet (pi's method).
 */
export function estimateContextTokens(messages: readonly AgentMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as AssistantMessage;
    if (m.role !== "assistant" || m.stopReason === "aborted" || m.stopReason === "error" || !m.usage)
      continue;
    const u = m.usage as Record<string, number>;
    let tokens = u.totalTokens || (u.input ?? 0) + (u.output ?? 0) + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0);
    // No usage reported (a server that ignores include_usage): an estimate, not an empty context.
    if (!tokens) continue;
    for (let j = i + 1; j < messages.length; j++) tokens += estimateTokens(messages[j] as AgentMessage);
    return tokens;
  }
  return messages.reduce((sum, m) => sum + estimateTokens(m), 0);
}
