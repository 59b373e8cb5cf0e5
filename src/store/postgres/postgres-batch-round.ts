import type { SessionEntry, SessionHeader } from "../../core/entry.js";
import type { BranchTail, FoundSession, SessionKey, StoredId, WriteTx } from "../engine/driver.js";
import type { DriverStep } from "../engine/step.js";
import type { SearchTexts } from "../search/search-docs.js";
import type { SessionRow } from "../sql/rows.js";
import type { SessionSummary, TxSql } from "../store.js";
import type { PgClient } from "./connection.js";
import {
  entriesByIds,
  insertEntries,
  lockSessions,
  type NewEntries,
  updateSessions,
} from "./postgres-batch-sql.js";
import { PgSessionTx } from "./postgres-tx.js";
import { PgTxSql } from "./postgres-tx-sql.js";

/** One session write of a batch: its key and its work (the engine's flow over a `WriteTx`). */
export interface BatchedWrite {
  key: SessionKey;
  work: (tx: WriteTx<SessionRow>) => DriverStep<unknown>;
}

export type WriteOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Thrown when the shared transaction cannot be kept: a statement failed (PostgreSQL aborts the
 * transaction) or a write failed after it had written. The batch is rolled back and each write
 * runs again alone, so one write's failure never undoes or fails another's.
 */
export class BatchAborted extends Error {
  constructor(cause: unknown) {
    super("The shared transaction was abandoned; each write runs alone", { cause });
  }
}

/** The batchable questions, in the order a write asks them; the others are asked one by one. */
const KINDS = ["find", "entriesByIds", "insertEntries", "updateSession"] as const;
type Kind = (typeof KINDS)[number] | "other";

interface Question {
  kind: Kind;
  /** The write asking (its index in the batch). */
  index: number;
  args: unknown[];
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Runs the flows of a batch of writes to different sessions inside one transaction, in lockstep:
 * when every flow still running waits on a question, the questions are answered together, one
 * statement per kind (postgres-batch-sql.ts). A flow that fails before writing fails alone; the
 * batch's answers are only handed out once the caller has committed.
 */
export class BatchRound {
  private waiting: Question[] = [];
  private running: number;
  private answering = false;
  private abandoned: unknown = undefined;

  constructor(
    private readonly c: PgClient,
    private readonly writes: readonly BatchedWrite[],
  ) {
    this.running = writes.length;
  }

  /** Every write's outcome; throws `BatchAborted` when the transaction must be rolled back. */
  async run(): Promise<WriteOutcome[]> {
    const outcomes = await Promise.all(this.writes.map((write, index) => this.runOne(write, index)));
    if (this.abandoned !== undefined) throw new BatchAborted(this.abandoned);
    return outcomes;
  }

  ask(kind: Kind, index: number, args: unknown[]): Promise<unknown> {
    if (this.abandoned !== undefined) return Promise.reject(new BatchAborted(this.abandoned));
    return new Promise((resolve, reject) => {
      this.waiting.push({ kind, index, args, resolve, reject });
      this.answerWhenAllWait();
    });
  }

  /** The write has used the connection directly or stored something: its failure ends the batch. */
  abandon(error: unknown): void {
    this.abandoned ??= error;
  }

  private async runOne(write: BatchedWrite, index: number): Promise<WriteOutcome> {
    const tx = new BatchedTx(this, write.key, index, new PgTxSql(this.c));
    try {
      return { ok: true, value: await write.work(tx) };
    } catch (error) {
      if (tx.wrote) this.abandon(error);
      return { ok: false, error };
    } finally {
      this.running--;
      this.answerWhenAllWait();
    }
  }

  private answerWhenAllWait(): void {
    if (this.answering || this.waiting.length === 0 || this.waiting.length < this.running) return;
    this.answering = true;
    const questions = this.waiting;
    this.waiting = [];
    void this.answer(questions).finally(() => {
      this.answering = false;
      this.answerWhenAllWait();
    });
  }

  private async answer(questions: Question[]): Promise<void> {
    for (const kind of [...KINDS, "other"] as const) {
      const asked = questions.filter((q) => q.kind === kind);
      if (asked.length === 0) continue;
      try {
        if (this.abandoned !== undefined) throw new BatchAborted(this.abandoned);
        const answers = await this.answerKind(kind, asked);
        asked.forEach((q, i) => {
          q.resolve(answers[i]);
        });
      } catch (error) {
        this.abandon(error);
        for (const q of asked) q.reject(error);
      }
    }
  }

  private async answerKind(kind: Kind, asked: Question[]): Promise<unknown[]> {
    switch (kind) {
      case "find":
        return lockSessions(
          this.c,
          asked.map((q) => this.writes[q.index]?.key as SessionKey),
        );
      case "entriesByIds":
        return entriesByIds(
          this.c,
          asked.map((q) => ({ ref: q.args[0] as SessionRow, ids: q.args[1] as string[] })),
        );
      case "insertEntries":
        await insertEntries(
          this.c,
          asked.map((q) => q.args[0] as NewEntries),
        );
        return asked.map(() => undefined);
      case "updateSession":
        await updateSessions(
          this.c,
          asked.map((q) => ({ ref: q.args[0] as SessionRow, next: q.args[1] as SessionSummary })),
        );
        return asked.map(() => undefined);
      default: {
        // Reads a write rarely asks (header, a branch, …) and purges: one at a time, as alone.
        const answers: unknown[] = [];
        for (const q of asked)
          answers.push(await (q.args[0] as (tx: PgSessionTx) => Promise<unknown>)(this.single(q)));
        return answers;
      }
    }
  }

  private single(q: Question): PgSessionTx {
    const key = this.writes[q.index]?.key as SessionKey;
    return new PgSessionTx(this.c, key, { lock: true, insertChunk: Number.MAX_SAFE_INTEGER });
  }
}

/** A write's `WriteTx` inside a batch: each question goes to the round, which asks it with the others. */
class BatchedTx implements WriteTx<SessionRow> {
  /** Whether the write has stored something or used the connection directly. */
  wrote = false;
  readonly sql: TxSql;

  constructor(
    private readonly round: BatchRound,
    readonly key: SessionKey,
    private readonly index: number,
    sql: TxSql,
  ) {
    // The caller's work inside the write (idempotency rows, blob claims) runs on the shared
    // connection as it comes; any of it counts as writing.
    this.sql = {
      dialect: sql.dialect,
      run: (text, params) => {
        this.wrote = true;
        return sql.run(text, params);
      },
      all: (text, params) => {
        this.wrote = true;
        return sql.all(text, params);
      },
    };
  }

  find(): Promise<FoundSession<SessionRow> | null> {
    return this.round.ask("find", this.index, []) as Promise<FoundSession<SessionRow> | null>;
  }

  entriesByIds(ref: SessionRow, ids: readonly string[]): Promise<ReadonlyMap<string, StoredId>> {
    return this.round.ask("entriesByIds", this.index, [ref, ids]) as Promise<ReadonlyMap<string, StoredId>>;
  }

  async insertEntries(
    ref: SessionRow,
    entries: readonly SessionEntry[],
    storedCount: number,
    searchTexts?: SearchTexts,
  ): Promise<void> {
    this.wrote = true;
    const write: NewEntries = { ref, entries, storedCount, searchTexts };
    await this.round.ask("insertEntries", this.index, [write]);
  }

  async updateSession(ref: SessionRow, next: SessionSummary): Promise<void> {
    this.wrote = true;
    await this.round.ask("updateSession", this.index, [ref, next]);
  }

  async purgeSession(ref: SessionRow): Promise<void> {
    this.wrote = true;
    await this.other((tx) => tx.purgeSession(ref));
  }

  header(ref: SessionRow): Promise<SessionHeader> {
    return this.other(async (tx) => tx.header(ref));
  }

  entries(ref: SessionRow, after: number, limit: number | null): Promise<SessionEntry[]> {
    return this.other((tx) => tx.entries(ref, after, limit));
  }

  branch(ref: SessionRow, leafId: string): Promise<SessionEntry[]> {
    return this.other((tx) => tx.branch(ref, leafId));
  }

  branchSince(ref: SessionRow, leafId: string, knownId: string): Promise<BranchTail> {
    return this.other((tx) => tx.branchSince(ref, leafId, knownId));
  }

  hasEntry(ref: SessionRow, entryId: string): Promise<boolean> {
    return this.other((tx) => tx.hasEntry(ref, entryId));
  }

  private other<T>(ask: (tx: PgSessionTx) => Promise<T>): Promise<T> {
    return this.round.ask("other", this.index, [ask]) as Promise<T>;
  }
}
