import pc from "picocolors";
import { terminalSafe } from "../terminal-text.js";

/**
 * The chat's retry notice: "[retry 1/3 in 5s] HTTP 429…", counting down in place on a terminal
 * (one line per retry when the output is piped). It stops by itself when the wait is over, or at
 * the next agent event.
 */
export class RetryCountdown {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly output: NodeJS.WritableStream & { isTTY?: boolean },
    private readonly out: (line?: string) => void,
  ) {}

  start(event: { attempt: number; maxRetries: number; delayMs: number; error: string }): void {
    this.stop();
    const label = (ms: number) =>
      pc.yellow(
        `[retry ${event.attempt}/${event.maxRetries} in ${Math.ceil(ms / 1000)}s] ${terminalSafe(event.error.slice(0, 160))}`,
      );
    if (!this.output.isTTY) {
      this.out(`\n${label(event.delayMs)}`);
      return;
    }
    const until = Date.now() + event.delayMs;
    this.output.write(`\n${label(event.delayMs)}`);
    this.timer = setInterval(() => {
      const left = until - Date.now();
      if (left <= 0) return this.stop();
      this.output.write(`\r\x1b[2K${label(left)}`);
    }, 1000);
  }

  /** Ends the countdown line, if one is running. */
  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.output.write("\n");
  }
}
