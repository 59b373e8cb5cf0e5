import { ConflictError } from "../../core/errors.js";
import { runFlow, type StoreFlow } from "../../store/engine/step.js";
import type { InTransaction, TxSql, WriteOutcome } from "../../store/store.js";
import type { Principal } from "../auth/principal.js";
import type { DeletionAction } from "../db/service-db.js";
import { forgetSession, recordDeletion, rememberResponse } from "../db/tx-rows.js";
import { IdempotencyKeyTaken } from "../http/idempotency.js";
import { serializeReply } from "../http/reply.js";
import type { IdempotencyScope, Reply } from "../http/route.js";
import type { ServerServices } from "../services.js";

/** Which session a write is for, and the precondition its request named. */
export interface SessionWriteTarget {
  owner: string;
  sessionId: string;
  /** The revision named by `If-Match`; undefined: any. */
  ifMatch: number | undefined;
  /** Check `If-Match` against a soft-deleted session too (a restore's target is in the trash). */
  includeDeleted?: boolean;
}

/** What a route's write answers, and what is written with it. */
export interface WriteRecord<R> {
  /** The reply, built from what the write did, inside its transaction (its revision, its summary). */
  reply(outcome: WriteOutcome<R>): Reply;
  /** Where to remember the reply (the request's Idempotency-Key), if anywhere. */
  idempotency: IdempotencyScope | undefined;
  /** An audit row, written only when the write changed something (a repeated delete adds none). */
  audit?: { principal: Principal; action: DeletionAction };
  /** Forget every remembered response about the session: a purge. */
  forget?: boolean;
  /** The session the reply is about (default: the summary the write produced). */
  sessionId?: string;
}

/** A record with the user it writes for (the session's owner). */
type OwnedRecord<R> = WriteRecord<R> & { owner: string };

/** The options a store write gets: the precondition and the work inside its transaction. */
export interface RecordedWriteOptions<R> extends Required<InTransaction<R>> {
  expectedRevision?: number;
}

/**
 * The one way a route writes to a session: behind this instance's other writes to it (the
 * session queue), after the `If-Match` precondition, with the named revision handed to the store
 * so another instance's write in between still fails the write; its reply and rows as `recordedWrite`.
 */
export function writeSession<R>(
  services: ServerServices,
  target: SessionWriteTarget,
  record: WriteRecord<R>,
  write: (options: RecordedWriteOptions<R>) => Promise<unknown>,
): Promise<Reply> {
  const { owner, sessionId, ifMatch } = target;
  return services.queue.run(owner, sessionId, async () => {
    if (ifMatch !== undefined) await checkIfMatch(services, target, ifMatch);
    return recordedWrite(services, { owner, sessionId, ...record }, (within) =>
      write({ expectedRevision: ifMatch, within }),
    );
  });
}

/**
 * Runs a store write whose reply, remembered response and audit row are decided and written
 * inside its transaction: they commit with it or not at all (a crash keeps both or neither), and
 * the reply tells the revision this write produced, not one read after others wrote. When the
 * store is not in the tables' database, the rows follow right after the write.
 */
export async function recordedWrite<R>(
  services: ServerServices,
  record: OwnedRecord<R>,
  write: (within: RecordedWriteOptions<R>["within"]) => Promise<unknown>,
): Promise<Reply> {
  let reply: Reply | undefined;
  let after: ((sql: TxSql) => StoreFlow<void>) | undefined;
  await write((outcome, sql) => {
    const answer = record.reply(outcome);
    reply = answer;
    const rows = (on: TxSql) => writeRows(services, record, outcome, answer, on);
    if (sql && services.db.sharesStoreTransactions) return runFlow(rows(sql));
    after = rows;
    return undefined;
  });
  if (after) await runFlow(after(services.db.sql));
  if (!reply) throw new Error("The store write did not report its outcome");
  return reply;
}

function* writeRows<R>(
  services: ServerServices,
  record: OwnedRecord<R>,
  outcome: WriteOutcome<R>,
  reply: Reply,
  sql: TxSql,
): StoreFlow<void> {
  const sessionId = record.sessionId ?? outcome.summary?.id ?? null;
  const at = services.now().toISOString();
  if (record.audit && outcome.changed && sessionId !== null) {
    const { principal, action } = record.audit;
    const row = { owner: principal.userId, sessionId, action, actor: principal.credentialId, via: "api", at };
    yield* recordDeletion(sql, row);
  }
  if (record.forget && sessionId !== null) yield* forgetSession(sql, record.owner, sessionId);
  const scope = record.idempotency;
  if (!scope) return;
  const response = serializeReply(reply);
  const remembered = { ...scope, at, response, sessionId: record.forget ? null : sessionId };
  if (!(yield* rememberResponse(sql, remembered))) throw new IdempotencyKeyTaken();
}

/**
 * The store checks the revision only for writes that change something; HTTP promises a 412 for
 * any stale precondition, no-op or not, so it is read and compared first.
 */
async function checkIfMatch(services: ServerServices, target: SessionWriteTarget, ifMatch: number) {
  const options = { includeDeleted: target.includeDeleted === true };
  const { revision } = await services.store.getSummary(target.owner, target.sessionId, options);
  if (revision !== ifMatch) throw new ConflictError("The session changed since the revision named", revision);
}
