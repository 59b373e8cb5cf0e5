import { TimeSlicer } from "./time-slicer.js";

/**
 * Text (or byte) pieces as a byte stream, read one piece per pull (so a slow reader slows the reads: the
 * socket's back-pressure reaches the store), giving the event loop back whenever a slice is used
 * up. `done` runs once when the stream ends, fails or is cancelled (the client went away).
 */
export function pieceStream(
  pieces: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  done: () => void = () => {},
): ReadableStream<Uint8Array> {
  const iterator: AsyncIterator<string | Uint8Array> | Iterator<string | Uint8Array> =
    Symbol.asyncIterator in pieces ? pieces[Symbol.asyncIterator]() : pieces[Symbol.iterator]();
  const encoder = new TextEncoder();
  const slicer = new TimeSlicer();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          await slicer.breathe();
          const next = await iterator.next();
          if (next.done) {
            done();
            controller.close();
          } else {
            const { value } = next;
            controller.enqueue(typeof value === "string" ? encoder.encode(value) : value);
          }
        } catch (error) {
          // The answer's status and first lines are sent already: the client sees a cut-off body.
          done();
          controller.error(error);
        }
      },
      async cancel() {
        done();
        await iterator.return?.();
      },
    },
    // One piece ahead at most: memory stays a page, whatever the session's size.
    { highWaterMark: 0 },
  );
}
