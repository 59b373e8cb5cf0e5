import { TimeSlicer } from "./time-slicer.js";

/** Takes the failure of a piece stream whose answer has started, in place of the stream's reader. */
export type PieceStreamFailure = (error: unknown) => void;

const failureHandlers = new WeakMap<ReadableStream<Uint8Array>, PieceStreamFailure>();

/**
 * Text (or byte) pieces as a byte stream, read one piece per pull (so a slow reader slows the reads: the
 * socket's back-pressure reaches the store), giving the event loop back whenever a slice is used
 * up. `done` runs once when the stream ends, fails or is cancelled (the client went away).
 *
 * A piece that fails (a blob gone from storage halfway through an export) goes to the handler
 * `onPieceStreamFailure` set, if any; else the stream errors.
 */
export function pieceStream(
  pieces: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  done: () => void = () => {},
): ReadableStream<Uint8Array> {
  const iterator: AsyncIterator<string | Uint8Array> | Iterator<string | Uint8Array> =
    Symbol.asyncIterator in pieces ? pieces[Symbol.asyncIterator]() : pieces[Symbol.iterator]();
  const encoder = new TextEncoder();
  const slicer = new TimeSlicer();
  let finished = false;
  const finish = () => {
    if (!finished) done();
    finished = true;
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          await slicer.breathe();
          const next = await iterator.next();
          if (next.done) {
            finish();
            controller.close();
          } else {
            const { value } = next;
            controller.enqueue(typeof value === "string" ? encoder.encode(value) : value);
          }
        } catch (error) {
          // The answer's status and first lines are sent already: the client sees a cut-off body.
          finish();
          const handler = failureHandlers.get(stream);
          if (handler) handler(error);
          else controller.error(error);
        }
      },
      async cancel() {
        finish();
        await iterator.return?.();
      },
    },
    // One piece ahead at most: memory stays a page, whatever the session's size.
    { highWaterMark: 0 },
  );
  return stream;
}

/**
 * Hands the failure of `stream` (made by `pieceStream`) to `handler` instead of erroring it. The
 * server sending it would print an errored body as a bare stack, apart from the request it
 * belongs to; the handler logs it under the request's id and ends the connection, which cancels
 * the stream. Any other stream is left as it is.
 */
export function onPieceStreamFailure(stream: ReadableStream<Uint8Array>, handler: PieceStreamFailure): void {
  failureHandlers.set(stream, handler);
}
