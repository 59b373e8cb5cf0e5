import { isSessionTreeError } from "../../core/errors.js";

/**
 * Runs `attempt` again when another writer got in first: a stale revision (`conflict`) or, over a
 * store the adapter did not read whole, a new entry id that was already taken off the path
 * (`duplicate_entry`; fresh ids are drawn on the next attempt). Each attempt reads afresh.
 */
export async function retryOnRace<T>(attempt: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      const raced = isSessionTreeError(error, "conflict") || isSessionTreeError(error, "duplicate_entry");
      if (!raced || i >= attempts) throw error;
    }
  }
}
