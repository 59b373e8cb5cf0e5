import { setImmediate as nextTurn } from "node:timers/promises";

/** How long one slice of a whole-session read may hold the event loop. */
export const DEFAULT_SLICE_MS = 3;

/**
 * Cuts long synchronous work (parsing, indexing, serializing tens of thousands of entries) into
 * slices of a few milliseconds and gives the event loop back between them, so one user's large
 * read delays another user's small request by one slice, not by the whole read.
 *
 * @example
 * const slicer = new TimeSlicer();
 * for (const entry of entries) {
 *   index(entry);
 *   if (slicer.due()) await slicer.pause();
 * }
 */
export class TimeSlicer {
  private started = performance.now();

  constructor(private readonly sliceMs = DEFAULT_SLICE_MS) {}

  /** True once this slice has used its time: the caller should `await pause()`. */
  due(): boolean {
    return performance.now() - this.started >= this.sliceMs;
  }

  /** Lets every other pending callback (I/O, other requests) run, then starts a new slice. */
  async pause(): Promise<void> {
    await nextTurn();
    this.started = performance.now();
  }

  /** `pause()` when due: after a piece of work of unknown size, such as a page of entries. */
  async breathe(): Promise<void> {
    if (this.due()) await this.pause();
  }
}
