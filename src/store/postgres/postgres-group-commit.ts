import type { SessionKey, WriteTx } from "../engine/driver.js";
import type { DriverStep } from "../engine/step.js";
import type { SessionRow } from "../sql/rows.js";
import { inTransaction, type PgPool } from "./connection.js";
import { BatchAborted, type BatchedWrite, BatchRound, type WriteOutcome } from "./postgres-batch-round.js";

interface QueuedWrite extends BatchedWrite {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export interface GroupCommitOptions {
  /** Transactions of several writes at once (each holds a pooled connection). @default 3 */
  batches?: number;
  /** Writes in one transaction at most. @default 64 */
  maxBatch?: number;
}

/**
 * Group commit on PostgreSQL: writes to different sessions waiting at the same time share one
 * transaction (BatchRound asks their questions together, a statement per kind), so a busy server
 * makes a few round trips and one commit for many writes instead of seven round trips each.
 * A write is answered only after the transaction holding it has committed. Writes to one session
 * never share a batch, nor run in two at once: they keep their order and their revision checks.
 * A batch of one, and every write of a batch that had to be abandoned, runs alone (`alone`).
 */
export class PgGroupCommit {
  private queue: QueuedWrite[] = [];
  private readonly busy = new Set<string>();
  private running = 0;
  private scheduled = false;
  private readonly batches: number;
  private readonly maxBatch: number;

  constructor(
    private readonly pool: () => PgPool,
    private readonly alone: <T>(
      key: SessionKey,
      work: (tx: WriteTx<SessionRow>) => DriverStep<T>,
    ) => Promise<T>,
    options: GroupCommitOptions = {},
  ) {
    this.batches = options.batches ?? 3;
    this.maxBatch = options.maxBatch ?? 64;
  }

  run<T>(key: SessionKey, work: (tx: WriteTx<SessionRow>) => DriverStep<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ key, work, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  /** After this turn of the event loop: the writes that arrive in it go together. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.startBatches();
    });
  }

  private startBatches(): void {
    while (this.running < this.batches) {
      const batch = this.takeBatch();
      if (batch.length === 0) return;
      this.running++;
      void this.execute(batch).finally(() => {
        this.running--;
        for (const write of batch) this.busy.delete(keyText(write.key));
        if (this.queue.length > 0) this.schedule();
      });
    }
  }

  /** Queued writes to sessions no running batch holds, one per session, in arrival order. */
  private takeBatch(): QueuedWrite[] {
    const batch: QueuedWrite[] = [];
    const left: QueuedWrite[] = [];
    for (const write of this.queue) {
      const key = keyText(write.key);
      if (batch.length >= this.maxBatch || this.busy.has(key)) left.push(write);
      else {
        this.busy.add(key);
        batch.push(write);
      }
    }
    this.queue = left;
    return batch;
  }

  private async execute(batch: QueuedWrite[]): Promise<void> {
    if (batch.length === 1) return this.runAlone(batch[0] as QueuedWrite);
    let outcomes: WriteOutcome[];
    try {
      outcomes = await this.together(batch);
    } catch (error) {
      if (!(error instanceof BatchAborted)) {
        for (const write of batch) write.reject(error);
        return;
      }
      await Promise.all(batch.map((write) => this.runAlone(write)));
      return;
    }
    batch.forEach((write, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) write.resolve(outcome.value);
      else write.reject(outcome?.error);
    });
  }

  /** The batch in one transaction: the outcomes once it has committed. */
  private together(batch: QueuedWrite[]): Promise<WriteOutcome[]> {
    return inTransaction(this.pool(), "read committed", (client) => new BatchRound(client, batch).run());
  }

  private async runAlone(write: QueuedWrite): Promise<void> {
    try {
      write.resolve(await this.alone(write.key, write.work));
    } catch (error) {
      write.reject(error);
    }
  }
}

function keyText(key: SessionKey): string {
  return `${key.owner}\u0000${key.sessionId}`;
}
