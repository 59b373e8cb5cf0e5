import type { Interface } from "node:readline";

/**
 * The chat's input as awaited lines, so a command can ask a question in the middle of the chat
 * (a confirmation) and read the answer from the same input, typed or piped.
 */
export class LineReader {
  private readonly queued: string[] = [];
  private waiting: ((line: string | undefined) => void) | undefined;
  private closed = false;

  constructor(readonly rl: Interface) {
    rl.on("line", (line: string) => {
      if (this.waiting) this.take()(line);
      else this.queued.push(line);
    });
    rl.on("close", () => {
      this.closed = true;
      if (this.waiting) this.take()(undefined);
    });
  }

  /** The next line; undefined once the input ended (or the chat closed it) and nothing is queued. */
  next(): Promise<string | undefined> {
    const line = this.queued.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => (this.waiting = resolve));
  }

  /** Asks a yes/no question; only an answer starting with "y" is a yes (the safe default is no). */
  async confirm(question: string): Promise<boolean> {
    this.rl.setPrompt(`${question} [y/N] `);
    this.rl.prompt();
    const answer = await this.next();
    this.rl.setPrompt("> ");
    return /^\s*y/i.test(answer ?? "");
  }

  private take(): (line: string | undefined) => void {
    const resolve = this.waiting as (line: string | undefined) => void;
    this.waiting = undefined;
    return resolve;
  }
}
