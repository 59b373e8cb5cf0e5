import type { SqliteDatabase, SqliteStatement } from "./sqlite-config.js";

/** Work the writes defer to the end of the shared transaction (the search words, pending-words.ts). */
export interface DeferredWork {
  /** Before a write: what undoes the write's part when its savepoint is undone. */
  mark(): () => void;
  /** Does the held work, last thing inside the transaction, before COMMIT. */
  flush(): void;
  /** Forgets the held work: the transaction has ended. */
  discard(): void;
}

/** The connection a group writes on, and what its writes defer. */
export interface GroupConnection {
  db: SqliteDatabase;
  deferred: DeferredWork;
}

interface QueuedWrite {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: writes queued in one turn of the event loop share one BEGIN IMMEDIATE … COMMIT,
 * each inside its own savepoint, so one write's error (a conflict, a bad batch) undoes only that
 * write. A commit is the costly part of a small write; concurrent requests share it.
 */
export class GroupCommit {
  private queue: QueuedWrite[] = [];
  private prepared: Savepoint | undefined;

  /** `connection` is asked at flush time: a store closed meanwhile fails the queued writes. */
  constructor(private readonly connection: () => GroupConnection) {}

  /** Runs `work` (synchronous: it runs inside the transaction) in the next shared transaction. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.queue.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    let deferred: DeferredWork | undefined;
    try {
      const { db, deferred: held } = this.connection();
      deferred = held;
      const savepoint = this.savepoints(db);
      db.transaction(() => {
        for (const item of batch) {
          const undo = held.mark();
          const outcome = inSavepoint(savepoint, item.work);
          if (!outcome.ok) undo();
          outcomes.push(outcome);
        }
        held.flush();
      }).immediate();
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    } finally {
      deferred?.discard();
    }
    for (const [i, item] of batch.entries()) {
      const outcome = outcomes[i];
      if (outcome?.ok) item.resolve(outcome.value);
      else item.reject(outcome?.error);
    }
  }

  /**
   * The savepoint statements, prepared once per connection: better-sqlite3's nested
   * `db.transaction(fn)` builds four wrapper functions per call, which cost more than the savepoint.
   */
  private savepoints(db: SqliteDatabase): Savepoint {
    if (this.prepared?.db !== db) {
      this.prepared = {
        db,
        begin: db.prepare("SAVEPOINT group_write"),
        release: db.prepare("RELEASE group_write"),
        undo: db.prepare("ROLLBACK TO group_write"),
      };
    }
    return this.prepared;
  }
}

interface Savepoint {
  db: SqliteDatabase;
  begin: SqliteStatement;
  release: SqliteStatement;
  undo: SqliteStatement;
}

/** One write in its own savepoint: its error undoes only its own changes. */
function inSavepoint(
  savepoint: Savepoint,
  work: () => unknown,
): { ok: true; value: unknown } | { ok: false; error: unknown } {
  savepoint.begin.run();
  try {
    const value = work();
    savepoint.release.run();
    return { ok: true, value };
  } catch (error) {
    // An error that ended the whole transaction (SQLite rolls back on some) fails the batch.
    if (!savepoint.db.inTransaction) throw error;
    savepoint.undo.run();
    savepoint.release.run();
    return { ok: false, error };
  }
}
