/** Timing helpers: medians over several runs, with a warm-up the caller may ask for. */

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Milliseconds of one call. */
export function timeOnce(fn: () => unknown): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function timeOnceAsync(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * Median milliseconds of `fn` over `runs` runs. `before` runs untimed before each run (to reset
 * state, e.g. delete an index). Runs of several contenders should be interleaved by the caller so
 * that background load hits all of them alike.
 */
export function medianMs(runs: number, fn: () => unknown, before?: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    before?.();
    times.push(timeOnce(fn));
  }
  return median(times);
}

/**
 * A full garbage collection before a timed run, when node runs with --expose-gc (`npm run bench`
 * does): without it the collection of what the run before left behind lands in whichever run comes
 * next (an open's garbage in pi's appends halved its rate in a run; the other contender's forest
 * in a getTree, which is mostly collector work).
 */
export function settle(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return;
  gc();
  // The collection returns while its helper threads still sweep the heap; on two cores, a run that
  // starts at once shares the machine with them and pays for the bench's own collection: a 100k
  // getTree measured 59 ms right after it, 12 ms after the pause, and 12 ms with no pause under
  // --single-threaded-gc. The pause lets them finish.
  Atomics.wait(pause, 0, 0, SWEEP_PAUSE_MS);
}

const SWEEP_PAUSE_MS = 100;
const pause = new Int32Array(new SharedArrayBuffer(4));

/** Interleaves contenders run by run and returns each one's median milliseconds. */
export function interleaved<K extends string>(
  runs: number,
  contenders: Record<K, { run: () => unknown; before?: () => void }>,
): Record<K, number> {
  const times = {} as Record<K, number[]>;
  const names = Object.keys(contenders) as K[];
  for (const name of names) times[name] = [];
  for (let i = 0; i < runs; i++) {
    for (const name of names) {
      const contender = contenders[name];
      contender.before?.();
      times[name].push(timeOnce(contender.run));
    }
  }
  const out = {} as Record<K, number>;
  for (const name of names) out[name] = median(times[name]);
  return out;
}

export function mb(bytes: number): number {
  return bytes / (1 << 20);
}
