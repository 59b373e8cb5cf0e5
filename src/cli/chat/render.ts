import pc from "picocolors";
import type { AgentEvent } from "../../agent/index.js";
import { messageText, type ToolCallContent } from "../../core/messages.js";
import type { Colors } from "../io.js";
import { colourOnly, terminalSafe } from "../terminal-text.js";
import { RetryCountdown } from "./countdown.js";
import { MarkdownStream } from "./markdown.js";

type Output = NodeJS.WritableStream & { isTTY?: boolean };

// biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are what is matched.
const TRAILING_CODES = /(\x1b\[[0-9;]*m)+$/;

/**
 * Shows the agent's events in the terminal: thinking in a dim block apart from the answer (or a
 * single "(thinking…)" with --hide-thinking), the answer as rendered Markdown, tool calls and
 * their results, retries counting down, compactions, stops and errors.
 */
export class ChatRenderer {
  private readonly markdown = new MarkdownStream();
  private readonly countdown: RetryCountdown;
  private block: "none" | "thinking" | "text" = "none";
  private atLineStart = true;
  private readonly colors: Colors;

  constructor(
    private readonly output: Output,
    private readonly options: { hideThinking?: boolean; colors?: Colors } = {},
  ) {
    this.colors = options.colors ?? pc;
    this.countdown = new RetryCountdown(output, (line) => this.line(line));
  }

  /** An agent listener. */
  readonly onEvent = (event: AgentEvent): void => {
    this.countdown.stop();
    if (event.type === "message_start" && event.message.role === "assistant") this.block = "none";
    else if (event.type === "message_update") {
      if (event.delta.kind === "thinking") this.thinking(event.delta.text);
      else this.text(event.delta.text);
    } else if (event.type === "message_end" && event.message.role === "assistant") this.endBlock();
    else if (event.type === "retry") {
      this.endBlock();
      this.countdown.start(event);
    } else {
      const line = noticeOf(event, this.colors);
      if (line !== undefined) this.line(line);
    }
  };

  /**
   * Writes a line of its own, ending whatever streamed text was open. Lines carry notices, the
   * banner and command answers (ids, names, labels, error messages): the net of terminal-text.ts
   * over them lets only colours through.
   */
  line(text = ""): void {
    this.endBlock();
    this.write(`${colourOnly(text)}\n`);
  }

  private thinking(text: string): void {
    if (this.block !== "thinking") {
      this.endBlock();
      this.block = "thinking";
      this.write(this.options.hideThinking ? `${this.colors.dim("(thinking…)")}\n` : this.colors.dim("┊ "));
    }
    if (this.options.hideThinking) return;
    // The model's text is untrusted: its control characters are shown, not obeyed (terminal-text.ts).
    this.write(this.colors.dim(terminalSafe(text).replace(/\n/g, `\n${"┊ "}`)));
  }

  private text(text: string): void {
    if (this.block !== "text") {
      this.endBlock();
      this.block = "text";
    }
    this.write(this.markdown.push(terminalSafe(text)));
  }

  private endBlock(): void {
    if (this.block === "text") this.write(this.markdown.flush());
    if (this.block === "thinking" && !this.options.hideThinking) this.write("\n");
    this.block = "none";
    if (!this.atLineStart) this.write("\n");
  }

  private write(text: string): void {
    if (text === "") return;
    this.output.write(text);
    // A colour's closing code may follow the newline (`dim("…\n")`): the line has still ended.
    this.atLineStart = text.replace(TRAILING_CODES, "").endsWith("\n");
  }
}

/** The line an event shows, if it shows one. */
function noticeOf(event: AgentEvent, colors: Colors): string | undefined {
  const number = (n: number) => n.toLocaleString("en-US");
  switch (event.type) {
    case "tool_call_start":
      return colors.cyan(`[tool] ${describeCall(event.call)}`);
    case "tool_call_end": {
      const refused = (event.result.details as { refused?: string } | undefined)?.refused;
      const label = refused ? "refused" : event.result.isError ? "result error" : "result";
      return colors.dim(`[${label}] ${firstLines(terminalSafe(messageText(event.result)), 3, 300)}`);
    }
    case "compaction_start":
      // After an overflow the estimate was under the window, yet the model refused: say so.
      return colors.yellow(
        event.reason === "overflow"
          ? `[the model refused the context as too long (~${number(event.tokens)} of ${number(event.contextWindow)} tokens estimated): compacting, then trying again…]`
          : `[context ~${number(event.tokens)} of ${number(event.contextWindow)} tokens: compacting…]`,
      );
    case "compaction_end":
      if (event.error)
        return colors.red(`[compaction failed, nothing written: ${terminalSafe(event.error)}]`);
      return colors.yellow(
        event.entryId ? `[compacted: older turns summarized in ${event.entryId}]` : "[nothing to compact]",
      );
    case "error":
      return colors.red(`[error] ${terminalSafe(event.message)}`);
    case "abort":
      return colors.yellow("[aborted]");
    case "prompt_rewound":
      return colors.yellow(
        `[the failed prompt stays in /tree as ${event.userEntryId} but is out of the context]`,
      );
    default:
      return undefined;
  }
}

/**
 * A call as one line: the command of a bash call, the path of a file tool, else its arguments.
 * The model wrote all of it: control characters are shown, not obeyed.
 */
export function describeCall(call: Pick<ToolCallContent, "name" | "arguments">): string {
  return terminalSafe(callText(call));
}

function callText(call: Pick<ToolCallContent, "name" | "arguments">): string {
  const args = call.arguments ?? {};
  if (call.name === "bash" && typeof args.command === "string")
    return `bash $ ${firstLines(args.command, 3, 200)}`;
  if (call.name === "write" && typeof args.content === "string")
    return `write ${String(args.path)} (${args.content.split("\n").length} lines)`;
  if (call.name === "edit") return `edit ${String(args.path)}`;
  return `${call.name} ${JSON.stringify(args).slice(0, 200)}`;
}

function firstLines(text: string, lines: number, max: number): string {
  const all = text.replace(/\n+$/, "").split("\n");
  const shown = all.slice(0, lines).join("\n").slice(0, max);
  const more = all.length - lines;
  return more > 0 ? `${shown}\n  … ${more} more line${more === 1 ? "" : "s"}` : shown;
}
