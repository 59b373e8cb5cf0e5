import pc from "picocolors";
import { INTERRUPTED_REPLY_TEXT } from "../../agent/resume.js";
import type { SessionEntry } from "../../core/entry.js";
import { type AssistantMessage, messageText, type ToolResultMessage } from "../../core/messages.js";
import { isWellFormed } from "../../core/validate.js";
import { oneLine } from "../io.js";
import { terminalSafe } from "../terminal-text.js";
import { renderMarkdown } from "./markdown.js";
import { describeCall } from "./render.js";

const MAX_LINES_PER_MESSAGE = 12;

/**
 * What a resumed chat shows before its first prompt: the last `turns` prompts of the current path
 * and what followed them, then a notice when the last reply was cut (a crash, an abort, an error).
 */
export function resumeView(path: readonly SessionEntry[], turns = 3): string[] {
  const starts = path.flatMap((e, i) => (e.type === "message" && e.message.role === "user" ? [i] : []));
  if (starts.length === 0) return [];
  const from = starts[Math.max(0, starts.length - turns)] as number;
  const lines = [pc.dim(`── last ${Math.min(turns, starts.length)} of ${starts.length} prompts ──`)];
  if (from > 0) lines.push(pc.dim("  (earlier turns: /tree)"));
  for (const entry of path.slice(from)) lines.push(...entryLines(entry));
  lines.push(pc.dim("──"));
  const notice = cutNotice(path);
  if (notice) lines.push(pc.yellow(notice));
  return lines;
}

function entryLines(entry: SessionEntry): string[] {
  if (!isWellFormed(entry)) return [];
  if (entry.type === "compaction") return [pc.dim(`[compacted: ${oneLine(entry.summary, 80)}]`)];
  if (entry.type === "branch_summary") return [pc.dim(`[branch summary: ${oneLine(entry.summary, 80)}]`)];
  if (entry.type === "model_change")
    return [pc.dim(terminalSafe(`[model → ${entry.provider}/${entry.modelId}]`))];
  if (entry.type !== "message") return [];
  const message = entry.message;
  if (message.role === "user")
    return clip(`> ${terminalSafe(messageText(message as { content?: unknown })).replace(/\n/g, "\n  ")}`);
  if (message.role === "toolResult") {
    const result = message as ToolResultMessage;
    const text = oneLine(messageText(result), 100);
    const refused = (result.details as { refused?: string } | undefined)?.refused;
    return [pc.dim(`[${refused ? "refused" : result.isError ? "result error" : "result"}] ${text}`)];
  }
  if (message.role !== "assistant") return [];
  const out: string[] = [];
  for (const block of (message as AssistantMessage).content) {
    if (block.type === "text" && block.text.trim())
      out.push(...clip(renderMarkdown(terminalSafe(block.text))));
    if (block.type === "toolCall") out.push(pc.cyan(`[tool] ${oneLine(describeCall(block), 100)}`));
  }
  return out;
}

/** Why the last turn on the path did not finish, if it did not. */
export function cutNotice(path: readonly SessionEntry[]): string | undefined {
  const messages = path.flatMap((e) => (e.type === "message" ? [e.message] : []));
  const last = messages.at(-1);
  if (!last) return undefined;
  const hint = 'Send a prompt ("continue") to go on.';
  if (last.role === "user") return `⚠ The last prompt got no reply (the chat ended first). ${hint}`;
  if (last.role === "toolResult") {
    const result = last as ToolResultMessage;
    const details = result.details as { interrupted?: boolean } | undefined;
    if (details?.interrupted)
      return `⚠ The last turn was cut by a crash: ${terminalSafe(result.toolName)} may or may not have run. ${hint}`;
    if (result.isError && /^Aborted:/.test(messageText(result)))
      return `⚠ The last turn was stopped (Ctrl-C) while ${terminalSafe(result.toolName)} ran. ${hint}`;
    return undefined;
  }
  if (last.role !== "assistant") return undefined;
  const reply = last as AssistantMessage;
  if (reply.stopReason === "aborted" && reply.errorMessage === INTERRUPTED_REPLY_TEXT)
    return `⚠ The last reply was cut by a crash before it was complete. ${hint}`;
  if (reply.stopReason === "aborted")
    return `⚠ The last reply was stopped (Ctrl-C) before it was complete. ${hint}`;
  if (reply.stopReason === "error")
    return `⚠ The last reply failed: ${oneLine(reply.errorMessage ?? "", 120)}`;
  return undefined;
}

function clip(whole: string): string[] {
  const text = whole.length > 1500 ? `${whole.slice(0, 1500)}… (${whole.length} characters)` : whole;
  const lines = text.split("\n");
  if (lines.length <= MAX_LINES_PER_MESSAGE) return lines;
  return [
    ...lines.slice(0, MAX_LINES_PER_MESSAGE),
    pc.dim(`  … ${lines.length - MAX_LINES_PER_MESSAGE} more lines`),
  ];
}
