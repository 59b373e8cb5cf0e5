import { createInterface } from "node:readline";
import type { ChatInput } from "./input.js";
import { LineReader } from "./line-reader.js";

/** The chat's input from a pipe or a file: one prompt a line, answers on their own lines. */
export class PipedInput implements ChatInput {
  private readonly lines: LineReader;

  constructor(
    input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
  ) {
    this.lines = new LineReader(createInterface({ input, terminal: false }));
  }

  async read(prompt: string): Promise<string | undefined> {
    this.output.write(prompt);
    return this.lines.next();
  }

  async choose(question: string, keys: readonly string[], fallback: string): Promise<string> {
    this.output.write(question);
    const first = ((await this.lines.next()) ?? "").trim().charAt(0).toLowerCase();
    return keys.includes(first) ? first : fallback;
  }

  busy(): void {}

  idle(): void {}

  close(): void {
    this.lines.rl.close();
  }
}
