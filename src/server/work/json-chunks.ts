import { HttpError } from "../http/http-error.js";
import type { TimeSlicer } from "./time-slicer.js";

/**
 * A large JSON (or JSONL) answer written piece by piece between event-loop turns, with a bound
 * on its size: past `maxBytes` the request is refused with 413 before a byte is sent, naming the
 * paged route that reads any session (`GET …/entries`).
 */
export class JsonChunks {
  private readonly pieces: string[] = [];
  private bytes = 0;

  constructor(
    private readonly slicer: TimeSlicer,
    private readonly maxBytes: number,
  ) {}

  /** Adds text as is (punctuation, a JSONL line). */
  async raw(text: string): Promise<void> {
    this.pieces.push(text);
    this.bytes += Buffer.byteLength(text);
    if (this.bytes > this.maxBytes) throw tooLarge(this.maxBytes);
    if (this.slicer.due()) await this.slicer.pause();
  }

  /** Adds `items` as the elements of a JSON array (the brackets are the caller's). */
  async array(items: Iterable<unknown>): Promise<void> {
    let first = true;
    for (const item of items) {
      await this.raw(first ? JSON.stringify(item) : `,${JSON.stringify(item)}`);
      first = false;
    }
  }

  /** Bytes so far (UTF-8). */
  get size(): number {
    return this.bytes;
  }

  /** The whole answer, once every piece is in. */
  text(): string {
    return this.pieces.join("");
  }

  /**
   * The whole answer, once every piece is in, as runs of about `runBytes` (by UTF-16 length):
   * sent a run at a time (work/piece-stream.ts), it is never one string of the answer's size,
   * whose encoding would hold the event loop for as long as it takes.
   */
  *runs(runBytes = 64 * 1024): Generator<string> {
    let run: string[] = [];
    let length = 0;
    for (const piece of this.pieces) {
      run.push(piece);
      length += piece.length;
      if (length >= runBytes) {
        yield run.join("");
        run = [];
        length = 0;
      }
    }
    if (run.length > 0) yield run.join("");
  }
}

function tooLarge(maxBytes: number): HttpError {
  const mib = (maxBytes / 1024 / 1024).toFixed(0);
  return new HttpError(
    413,
    "payload_too_large",
    `The answer would exceed ${mib} MiB; read the session in pages with GET /v1/sessions/{id}/entries`,
  );
}
