import pc from "picocolors";
import type { ChatInput } from "./input.js";
import { type Key, KeyParser } from "./keys.js";
import { LineEditor } from "./line-editor.js";

/** A second Ctrl-C within this long of the first quits the chat. */
const QUIT_WINDOW_MS = 2000;

type TtyIn = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
type TtyOut = NodeJS.WritableStream & { columns?: number };

/**
 * The chat's input on a terminal, in raw mode with bracketed paste: the chat draws its own line,
 * so a multi-line paste is one prompt, keys typed during a reply are kept for the next prompt
 * instead of being echoed into the reply, and Ctrl-C means "stop" while a run goes and "quit"
 * (pressed twice) at an idle prompt.
 */
export class TerminalInput implements ChatInput {
  private readonly parser = new KeyParser();
  private readonly editor = new LineEditor();
  /** Prompts submitted (Enter) while a run was going: the next reads take them in order. */
  private readonly queued: string[] = [];
  private reading: { prompt: string; resolve: (line: string | undefined) => void } | undefined;
  private choosing: { keys: readonly string[]; fallback: string; resolve: (key: string) => void } | undefined;
  private onInterrupt: (() => void) | undefined;
  private lastInterrupt = 0;
  private ended = false;
  private readonly onData = (chunk: string | Buffer) => {
    for (const key of this.parser.push(chunk.toString())) this.onKey(key);
  };
  private readonly onEnd = () => {
    this.ended = true;
    this.finishRead(undefined);
    this.finishChoice(undefined);
  };

  constructor(
    private readonly input: TtyIn,
    private readonly output: TtyOut,
  ) {
    input.setRawMode?.(true);
    input.on("data", this.onData);
    input.on("end", this.onEnd);
    input.resume();
    output.write("\x1b[?2004h"); // bracketed paste on
  }

  read(prompt: string): Promise<string | undefined> {
    const line = this.queued.shift();
    if (line !== undefined) {
      this.output.write(`${prompt}${shownAsTyped(line)}\n`);
      return Promise.resolve(line);
    }
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.reading = { prompt, resolve };
      this.draw();
    });
  }

  choose(question: string, keys: readonly string[], fallback: string): Promise<string> {
    if (this.ended) return Promise.resolve(fallback);
    this.output.write(question);
    return new Promise((resolve) => (this.choosing = { keys, fallback, resolve }));
  }

  busy(onInterrupt: () => void): void {
    this.onInterrupt = onInterrupt;
  }

  idle(): void {
    this.onInterrupt = undefined;
  }

  close(): void {
    this.input.off("data", this.onData);
    this.input.off("end", this.onEnd);
    this.output.write("\x1b[?2004l");
    this.input.setRawMode?.(false);
    this.input.pause();
  }

  private onKey(key: Key): void {
    if (this.choosing) {
      this.onChoiceKey(key);
      return;
    }
    const outcome = this.editor.apply(key);
    if (!this.reading) {
      // A run is going: nothing typed is shown now; Enter queues a prompt, Ctrl-C stops the run.
      if (outcome === "interrupt") this.onInterrupt?.();
      else if (outcome === "submit" && this.editor.text.trim() !== "") this.queued.push(this.editor.take());
      return;
    }
    if (outcome === "submit") {
      const line = this.editor.take();
      this.output.write(`\r\x1b[2K${this.reading.prompt}${shownAsTyped(line)}\n`);
      this.finishRead(line);
    } else if (outcome === "eof") this.quit();
    else if (outcome === "interrupt") this.interruptAtPrompt();
    else this.draw();
  }

  private interruptAtPrompt(): void {
    if (this.editor.text !== "") {
      this.editor.clear();
      this.draw();
      return;
    }
    if (Date.now() - this.lastInterrupt < QUIT_WINDOW_MS) {
      this.quit();
      return;
    }
    this.lastInterrupt = Date.now();
    this.output.write(`\r\x1b[2K${pc.dim("(press Ctrl-C again to quit)")}\n`);
    this.draw();
  }

  private quit(): void {
    this.output.write("\n");
    this.finishRead(undefined);
  }

  /**
   * An answer is one key press: one of the letters, or Enter, Escape or Ctrl-C for the fallback
   * (Ctrl-C also stops the run). Anything else — a burst of typed-ahead text, a paste, an arrow —
   * answers nothing, so words typed on while the question appeared cannot say yes or no.
   */
  private onChoiceKey(key: Key): void {
    const choice = this.choosing as NonNullable<TerminalInput["choosing"]>;
    if (key.kind === "text" && key.text.length === 1 && choice.keys.includes(key.text.toLowerCase())) {
      this.finishChoice(key.text.toLowerCase());
    } else if (key.kind === "key" && ["enter", "escape", "ctrl-c"].includes(key.name)) {
      if (key.name === "ctrl-c") this.onInterrupt?.();
      this.finishChoice(choice.fallback);
    }
  }

  private finishChoice(key: string | undefined): void {
    const choice = this.choosing;
    if (!choice) return;
    this.choosing = undefined;
    this.output.write(`${key ?? choice.fallback}\n`);
    choice.resolve(key ?? choice.fallback);
  }

  private finishRead(line: string | undefined): void {
    const reading = this.reading;
    this.reading = undefined;
    reading?.resolve(line);
  }

  /** Draws the prompt and the line being typed, over the current terminal line. */
  private draw(): void {
    if (!this.reading) return;
    const prompt = this.reading.prompt;
    const { text, column } = this.editor.view((this.output.columns ?? 80) - visibleLength(prompt));
    const to = visibleLength(prompt) + column;
    this.output.write(`\r\x1b[2K${prompt}${text}\r${to > 0 ? `\x1b[${to}C` : ""}`);
  }
}

/**
 * A submitted prompt as it stays in the transcript: a paste's lines indented under the prompt, a
 * long paste as its first lines and a count (the whole text is what is sent).
 */
export function shownAsTyped(line: string): string {
  const lines = line.split("\n");
  if (lines.length <= 8 && line.length <= 800) return lines.join("\n  ");
  const head = lines.slice(0, 3).map((l) => (l.length > 200 ? `${l.slice(0, 200)}…` : l));
  return `${head.join("\n  ")}\n  ${pc.dim(`[… pasted ${lines.length} lines, ${line.length} characters]`)}`;
}

function visibleLength(text: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes take no columns.
  return text.replace(/\x1b\[[0-9;]*m/g, "").length;
}
