import { isSessionTreeError } from "../../core/errors.js";

/**
 * How long a write keeps being planned again while other writers get in first. Each race lost is
 * another writer's write landing, so a writer is never stuck behind a livelock, only behind a
 * crowd: a time, not a count, says when the crowd is too large to wait for.
 */
const RETRY_FOR_MS = 30_000;
/** The pauses between attempts: random (so racing writers spread out) up to a cap that doubles. */
const FIRST_PAUSE_MS = 5;
const LONGEST_PAUSE_MS = 250;

/**
 * Runs `attempt` again when another writer got in first: a stale revision (`conflict`, also what a
 * write against a session deleted since its plan answers, see StoreHistory) or, over a store the
 * adapter did not read whole, a new entry id that was already taken off the path
 * (`duplicate_entry`; fresh ids are drawn on the next attempt). Each attempt reads afresh, after a
 * short random pause; past `retryForMs` the last race lost is the answer.
 */
export async function retryOnRace<T>(attempt: () => Promise<T>, retryForMs = RETRY_FOR_MS): Promise<T> {
  const deadline = Date.now() + retryForMs;
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isRace(error) || Date.now() >= deadline) throw error;
      await pause(Math.random() * Math.min(LONGEST_PAUSE_MS, FIRST_PAUSE_MS * 2 ** tries));
    }
  }
}

function isRace(error: unknown): boolean {
  return isSessionTreeError(error, "conflict") || isSessionTreeError(error, "duplicate_entry");
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
