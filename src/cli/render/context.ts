import type { ProjectedContext } from "../../core/context.js";
import { messageText } from "../../core/messages.js";
import { tokensBeforeText } from "../../format/describe.js";
import { type Colors, oneLine } from "../io.js";
import { terminalSafe as safe } from "../terminal-text.js";

export interface ContextRenderOptions {
  colors: Colors;
  width: number;
  /** Lines of each tool result and thinking block to show; 0 shows all. */
  maxLines: number;
}

type Block = Record<string, unknown>;

/** The model's context as a transcript: one section per message, with the entry it came from. */
export function renderContext(context: ProjectedContext, options: ContextRenderOptions): string[] {
  const c = options.colors;
  const lines: string[] = [];
  context.messages.forEach((message, i) => {
    const m = message as unknown as Block;
    const id = context.messageEntryIds[i] ?? "";
    lines.push(`${c.dim("──")} ${roleTitle(m, c)} ${c.dim(safe(id))}`);
    lines.push(...body(m, options), "");
  });
  return lines;
}

function roleTitle(m: Block, c: Colors): string {
  switch (m.role) {
    case "user":
      return c.bold(c.cyan("user"));
    case "assistant":
      return `${c.bold(c.green("assistant"))}${typeof m.model === "string" ? c.dim(` ${safe(m.model)}`) : ""}`;
    case "toolResult":
      return m.isError
        ? c.red(`tool result ${safe(String(m.toolName))} (error)`)
        : c.yellow(`tool result ${safe(String(m.toolName))}`);
    case "compactionSummary":
      return c.bold(c.magenta(`compaction summary (${tokensBeforeText(m.tokensBefore)} tokens before)`));
    case "branchSummary":
      return c.bold(c.magenta("branch summary"));
    case "custom":
      return c.blue(`custom ${safe(String(m.customType))}`);
    default:
      return c.blue(safe(String(m.role)));
  }
}

function body(m: Block, options: ContextRenderOptions): string[] {
  const c = options.colors;
  if (m.role === "compactionSummary" || m.role === "branchSummary") return [safe(String(m.summary))];
  if (m.role === "toolResult") return clip(safe(messageText(m)), options);
  if (m.role !== "assistant" || !Array.isArray(m.content))
    return [safe(messageText(m)) || c.dim("(no text)")];
  const out: string[] = [];
  for (const block of m.content as Block[]) {
    if (block.type === "text") out.push(safe(String(block.text)));
    else if (block.type === "thinking") out.push(...thinkingLines(block, options));
    else if (block.type === "toolCall") {
      const name = safe(String(block.name));
      const args = oneLine(
        JSON.stringify(block.arguments ?? {}),
        Math.max(20, options.width - name.length - 4),
      );
      out.push(`${c.yellow("→")} ${c.bold(name)} ${c.dim(args)}`);
    }
  }
  if (typeof m.errorMessage === "string") out.push(c.red(`error: ${safe(m.errorMessage)}`));
  return out.length > 0 ? out : [c.dim("(empty)")];
}

/**
 * A thinking block, marked in words and not only dimmed: without colours (NO_COLOR, a pipe) the
 * model's reasoning must not read as its reply. `[thinking]`, then each line behind a bar.
 */
function thinkingLines(block: Block, options: ContextRenderOptions): string[] {
  const c = options.colors;
  const text = typeof block.thinking === "string" ? block.thinking : "";
  // A redacted block holds an encrypted payload, not words: say so rather than print it.
  if (block.redacted === true) return [c.dim("[thinking, redacted]")];
  if (text.trim() === "") return [c.dim("[thinking] (empty)")];
  return [c.dim("[thinking]"), ...clip(safe(text), options).map((line) => c.dim(`${THINKING_BAR}${line}`))];
}

const THINKING_BAR = "│ ";

/**
 * The first `maxLines` lines of `text` and how many more there are. Only the lines shown are cut
 * out: a tool result of thousands of lines is counted, not split into a string per line.
 */
function clip(text: string, options: ContextRenderOptions): string[] {
  const { maxLines } = options;
  if (maxLines <= 0) return text.split("\n");
  const shown: string[] = [];
  let start = 0;
  for (let end = text.indexOf("\n"); end !== -1 && shown.length < maxLines; end = text.indexOf("\n", start)) {
    shown.push(text.slice(start, end));
    start = end + 1;
  }
  // Fewer lines than the limit: the rest is the last of them.
  if (shown.length < maxLines) return [...shown, text.slice(start)];
  return [...shown, options.colors.dim(`… ${linesFrom(text, start)} more lines (--full)`)];
}

/** How many lines `text` holds from `start` on (a line per newline, and the one after the last). */
function linesFrom(text: string, start: number): number {
  let count = 1;
  for (let at = text.indexOf("\n", start); at !== -1; at = text.indexOf("\n", at + 1)) count++;
  return count;
}
