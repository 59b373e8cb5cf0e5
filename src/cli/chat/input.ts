/**
 * Where the chat reads from: a terminal (keys, raw mode) or a pipe (lines). The chat code is the
 * same for both.
 */
export interface ChatInput {
  /** The next prompt; undefined when the user quits (Ctrl-C twice, Ctrl-D, end of input). */
  read(prompt: string): Promise<string | undefined>;
  /**
   * One answer among `keys` (single letters): a key press on a terminal, the first letter of the
   * next line on a pipe. Enter, Ctrl-C, an unknown answer or the end of input give `fallback`.
   */
  choose(question: string, keys: readonly string[], fallback: string): Promise<string>;
  /** A run started: typing is kept for the next prompt, not echoed; Ctrl-C calls `onInterrupt`. */
  busy(onInterrupt: () => void): void;
  /** The run ended. */
  idle(): void;
  close(): void;
}

/** A yes/no question whose safe answer is no. */
export async function confirm(input: ChatInput, question: string): Promise<boolean> {
  return (await input.choose(`${question} [y/N] `, ["y", "n"], "n")) === "y";
}
