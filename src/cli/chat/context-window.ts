import type { CompactionSettings } from "../../agent/index.js";

/** Context windows of the models people name most; others get a conservative 128k (or --context-window). */
const KNOWN_WINDOWS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-5/, 400_000],
  [/^gpt-4o/, 128_000],
  [/^o[134]/, 200_000],
  [/^claude/, 200_000],
];

export const FALLBACK_WINDOW = 128_000;

/** The window the chat compacts against: the flag's, else the model's known window, else 128k. */
export function contextWindowOf(modelId: string, flag: number | undefined): number {
  if (flag) return flag;
  return KNOWN_WINDOWS.find(([pattern]) => pattern.test(modelId))?.[1] ?? FALLBACK_WINDOW;
}

/**
 * Compaction settings for a window: pi's defaults (keep 20k tokens, reserve 16k) on large windows,
 * a quarter of the window each on small ones, so a small model still keeps room to answer.
 */
export function compactionFor(window: number): CompactionSettings {
  const quarter = Math.floor(window / 4);
  return { keepRecentTokens: Math.min(20_000, quarter), reserveTokens: Math.min(16_384, quarter) };
}
