import type { SessionStore } from "../store/store.js";
import type { ServiceDb } from "./db/service-db.js";

const DAY_MS = 86_400_000;

/**
 * Retention: hard-purges every session soft-deleted more than `retentionDays` ago, of every user,
 * and writes one audit row per purge (actor `system`, via `retention`). Nothing that was not
 * soft-deleted by its user is ever touched.
 */
export async function purgeExpiredSessions(
  store: SessionStore,
  db: ServiceDb,
  retentionDays: number,
  now: Date = new Date(),
  /** How the purge was started, for the audit log: the server's timer or the `purge-deleted` command. */
  via: "retention" | "cli" = "retention",
): Promise<Array<{ owner: string; sessionId: string }>> {
  if (!(retentionDays >= 0)) throw new RangeError("retentionDays must be a number >= 0");
  const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
  const purged = await store.purgeDeletedBefore(cutoff);
  const at = now.toISOString();
  for (const { owner, sessionId } of purged) {
    await db.recordDeletion({
      owner,
      sessionId,
      action: "retention_purge",
      actor: "system",
      via,
      at,
    });
  }
  return purged;
}

/** Runs `task` every `intervalMs` (first run right away); failures are logged, never fatal. */
export function startTimer(task: () => Promise<unknown>, intervalMs: number): () => Promise<void> {
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = task()
      .catch((error) => console.error("sessiontree maintenance failed:", error))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  const first = setImmediate(tick);
  first.unref();
  // Stopping waits for a run in progress, so the databases are not closed under it.
  return async () => {
    stopped = true;
    clearInterval(timer);
    clearImmediate(first);
    await running;
  };
}
