import type { Interface } from "node:readline";

/**
 * Lines of an input as awaited values, so a question in the middle of the chat (a confirmation)
 * reads its answer from the same input.
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

  private take(): (line: string | undefined) => void {
    const resolve = this.waiting as (line: string | undefined) => void;
    this.waiting = undefined;
    return resolve;
  }
}
