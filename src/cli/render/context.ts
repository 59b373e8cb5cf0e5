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

/**
 * The model's context as a transcript: one section per message, with the entry it came from. A
 * line may hold newlines (a text block). The lines are pushed onto `into` when given: `show`
 * builds its whole output in one array and joins it once, with no array per message or block.
 */
export function renderContext(
  context: ProjectedContext,
  options: ContextRenderOptions,
  into: string[] = [],
): string[] {
  const c = options.colors;
  const { messages, messageEntryIds } = context;
  // A message's title line up to its entry id, once for each role, model and tool (a few strings
  // for a session of thousands of messages, not a few for each of them).
  const heads = new Map<string, string>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as unknown as Block;
    const key = headKey(m);
    let head = key === null ? undefined : heads.get(key);
    if (head === undefined) {
      head = `${c.dim("──")} ${roleTitle(m, c)} `;
      if (key !== null) heads.set(key, head);
    }
    into.push(head + c.dim(safe(messageEntryIds[i] ?? "")));
    body(m, options, into);
    into.push("");
  }
  return into;
}

/** What `roleTitle` of a user message, a reply or a tool result depends on; null for the others. */
function headKey(m: Block): string | null {
  switch (m.role) {
    case "user":
      return "user";
    case "assistant":
      return typeof m.model === "string" ? `assistant ${m.model}` : "assistant";
    case "toolResult":
      return `${m.isError ? "error" : "result"} ${String(m.toolName)}`;
    default:
      return null;
  }
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

/** The lines of a message's body, pushed onto `out`. */
function body(m: Block, options: ContextRenderOptions, out: string[]): void {
  const c = options.colors;
  if (m.role === "compactionSummary" || m.role === "branchSummary") {
    out.push(safe(String(m.summary)));
    return;
  }
  if (m.role === "toolResult") {
    clip(safe(textOf(m)), options, out);
    return;
  }
  if (m.role !== "assistant" || !Array.isArray(m.content)) {
    out.push(safe(textOf(m)) || c.dim("(no text)"));
    return;
  }
  const from = out.length;
  for (const block of m.content as Block[]) {
    if (block.type === "text") out.push(safe(String(block.text)));
    else if (block.type === "thinking") thinkingLines(block, options, out);
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
  if (out.length === from) out.push(c.dim("(empty)"));
}

/**
 * `messageText(m)`, without its copy of the text when the content is one text block (most tool
 * results and prompts): a transcript of hundreds of messages then allocates half as much.
 */
function textOf(m: Block): string {
  const content = m.content;
  if (Array.isArray(content) && content.length === 1) {
    const block = content[0] as Block | null;
    if (block && typeof block === "object" && block.type === "text" && typeof block.text === "string")
      return block.text;
  }
  return messageText(m);
}

/**
 * A thinking block, marked in words and not only dimmed: without colours (NO_COLOR, a pipe) the
 * model's reasoning must not read as its reply. `[thinking]`, then each line behind a bar.
 */
function thinkingLines(block: Block, options: ContextRenderOptions, out: string[]): void {
  const c = options.colors;
  const text = typeof block.thinking === "string" ? block.thinking : "";
  // A redacted block holds an encrypted payload, not words: say so rather than print it.
  if (block.redacted === true) {
    out.push(c.dim("[thinking, redacted]"));
    return;
  }
  if (text.trim() === "") {
    out.push(c.dim("[thinking] (empty)"));
    return;
  }
  out.push(c.dim("[thinking]"));
  const from = out.length;
  clip(safe(text), options, out);
  for (let i = from; i < out.length; i++) out[i] = c.dim(`${THINKING_BAR}${out[i]}`);
}

const THINKING_BAR = "│ ";

/**
 * The first `maxLines` lines of `text` and how many more there are, pushed onto `out`. Only the
 * lines shown are cut out: a tool result of thousands of lines is counted, not split into a string
 * per line.
 */
function clip(text: string, options: ContextRenderOptions, out: string[]): void {
  const { maxLines } = options;
  let start = 0;
  for (let shown = 0; maxLines <= 0 || shown < maxLines; shown++) {
    const end = text.indexOf("\n", start);
    if (end === -1) {
      // Fewer lines than the limit: the rest is the last of them.
      out.push(start === 0 ? text : text.slice(start));
      return;
    }
    out.push(text.slice(start, end));
    start = end + 1;
  }
  out.push(options.colors.dim(`… ${linesFrom(text, start)} more lines (--full)`));
}

/** How many lines `text` holds from `start` on (a line per newline, and the one after the last). */
function linesFrom(text: string, start: number): number {
  let count = 1;
  for (let at = text.indexOf("\n", start); at !== -1; at = text.indexOf("\n", at + 1)) count++;
  return count;
}
