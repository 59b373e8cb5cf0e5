import { runFlow, type StoreFlow } from "../store/engine/step.js";
import type { PurgedSessions, SessionStore, TxSql } from "../store/store.js";
import type { ServiceDb } from "./db/service-db.js";
import { forgetSession, recordDeletion } from "./db/tx-rows.js";
import { stderrSink } from "./ops/access-log.js";
import { describeError, logLine } from "./ops/log-line.js";

const DAY_MS = 86_400_000;

/**
 * Retention: hard-purges every session soft-deleted more than `retentionDays` ago, of every user,
 * and, in the same transaction, writes one audit row per purge (actor `system`, via `retention`)
 * and forgets the remembered responses about each. Nothing that was not soft-deleted by its user
 * is ever touched.
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
  const at = now.toISOString();
  let after: PurgedSessions | undefined;
  const purged = await store.purgeDeletedBefore(cutoff, {
    within: ({ result }, sql) => {
      if (sql && db.sharesStoreTransactions) return runFlow(purgeRows(sql, result, via, at));
      after = result;
      return undefined;
    },
  });
  if (after) await runFlow(purgeRows(db.sql, after, via, at));
  return purged;
}

function* purgeRows(sql: TxSql, purged: PurgedSessions, via: string, at: string): StoreFlow<void> {
  for (const { owner, sessionId } of purged) {
    yield* recordDeletion(sql, { owner, sessionId, action: "retention_purge", actor: "system", via, at });
    yield* forgetSession(sql, owner, sessionId);
  }
}

/** A failed maintenance run as one JSON line on stderr, like every other line the server writes. */
const logFailure = (error: unknown) =>
  stderrSink(logLine("error", "maintenance failed", { error: describeError(error) }));

/** Runs `task` every `intervalMs` (first run right away); failures are logged, never fatal. */
export function startTimer(task: () => Promise<unknown>, intervalMs: number): () => Promise<void> {
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = task()
      .catch(logFailure)
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
