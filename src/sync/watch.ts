import { setTimeout as sleep } from "node:timers/promises";
import { type SyncOptions, type SyncReport, syncRoot } from "./sync.js";

export interface WatchOptions {
  /** Between the end of one sync and the start of the next. */
  intervalMs: number;
  /** Ends the loop (after the sync under way). */
  signal: AbortSignal;
  onReport(report: SyncReport): void;
  /** A run that failed (the service unreachable): reported, and the next run tries again. */
  onError(error: unknown): void;
}

/**
 * `sessiontree sync --watch`: syncs again and again as files grow and the service moves. Each run
 * is the cheap comparison when nothing changed (the files stat'ed, one small request), so a short
 * interval costs little; a run that fails is reported and the next one resumes where it stopped.
 */
export async function watchSync(options: SyncOptions, watch: WatchOptions): Promise<void> {
  while (!watch.signal.aborted) {
    try {
      watch.onReport(await syncRoot(options));
    } catch (error) {
      watch.onError(error);
    }
    try {
      await sleep(watch.intervalMs, undefined, { signal: watch.signal });
    } catch {
      return; // aborted while waiting
    }
  }
}
