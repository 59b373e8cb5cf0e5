import type { SessionEntry, SessionHeader } from "../../core/entry.js";
import type {
  BranchTail,
  FoundSession,
  InsertOutcome,
  NewSession,
  SessionKey,
  StoredId,
  WriteTx,
} from "../engine/driver.js";
import type { DriverStep } from "../engine/step.js";
import { entryJson } from "../engine/validate-batch.js";
import type { SearchTexts } from "../search/search-docs.js";
import {
  mutableColumns,
  payloadToEntry,
  rowHeader,
  rowToSummary,
  type SessionRow,
  seqOrdered,
  tailOfRows,
} from "../sql/rows.js";
import type { SessionSummary, TxSql } from "../store.js";
import type { PgClient } from "./connection.js";
import { runStarts } from "./path-runs.js";
import { indexEntries } from "./postgres-search.js";
import { PgTxSql } from "./postgres-tx-sql.js";
import { SQL } from "./sql.js";

/**
 * One session's reads and writes on a PostgreSQL connection inside a transaction. In a write,
 * `find` locks the session row (`SELECT … FOR UPDATE`) until the transaction ends: writers to one
 * session queue there, across processes and server instances, and the revision the engine checks
 * is the one the write will replace.
 */
/** The largest value of a PostgreSQL `integer`. */
const INT4_MAX = 2_147_483_647;

export class PgSessionTx implements WriteTx<SessionRow> {
  readonly sql: TxSql;

  constructor(
    private readonly c: PgClient,
    private readonly key: SessionKey,
    private readonly options: { lock: boolean; insertChunk: number },
  ) {
    this.sql = new PgTxSql(c);
  }

  async find(): Promise<FoundSession<SessionRow> | null> {
    const sql = this.options.lock ? SQL.lockSession : SQL.findSession;
    const row = (await this.c.query(sql, [this.key.owner, this.key.sessionId])).rows[0] as
      | SessionRow
      | undefined;
    return row ? { summary: rowToSummary(row), ref: row } : null;
  }

  header(row: SessionRow): SessionHeader {
    return rowHeader(row);
  }

  async entries(row: SessionRow, after: number, limit: number | null): Promise<SessionEntry[]> {
    // LIMIT NULL: no limit. `seq` is an integer column: a position past its range is past every
    // entry (an empty page, as on every backend), not a value PostgreSQL refuses to compare.
    const { rows } = await this.c.query(SQL.entriesInOrder, [row.pk, Math.min(after, INT4_MAX), limit]);
    return rows.map((r) => payloadToEntry(r.payload));
  }

  async branch(row: SessionRow, leafId: string): Promise<SessionEntry[]> {
    const { rows } = await this.c.query(SQL.branch, [String(row.pk), leafId]);
    return seqOrdered(rows as PathRow[]).map((r) => payloadToEntry(r.payload));
  }

  async branchSince(row: SessionRow, leafId: string, knownId: string): Promise<BranchTail> {
    const { rows } = await this.c.query(SQL.branchSince, [String(row.pk), leafId, knownId]);
    return tailOfRows(seqOrdered(rows as PathRow[]), knownId);
  }

  async entriesByIds(row: SessionRow, ids: readonly string[]): Promise<Map<string, StoredId>> {
    const { rows } = await this.c.query(SQL.entriesByKeys, [ids.map((id) => entryKey(row.pk, id))]);
    return new Map(rows.map((r) => [r.id as string, payloadToEntry(r.payload)]));
  }

  async hasEntry(row: SessionRow, entryId: string): Promise<boolean> {
    return (await this.c.query(SQL.entryExists, [entryKey(row.pk, entryId)])).rows.length > 0;
  }

  async insertEntries(
    row: SessionRow,
    entries: readonly SessionEntry[],
    storedCount: number,
    searchTexts?: SearchTexts,
  ): Promise<void> {
    await insertEntries(this.c, row.pk, storedCount, entries, this.options.insertChunk);
    await indexEntries(this.c, row.pk, entries, searchTexts);
  }

  async updateSession(row: SessionRow, next: SessionSummary): Promise<void> {
    await this.c.query(SQL.updateSession, [...mutableColumns(next), row.pk]);
  }

  async purgeSession(row: SessionRow): Promise<void> {
    // Entries go with it (ON DELETE CASCADE).
    await this.c.query(SQL.deleteSession, [row.pk]);
  }
}

/** A new session's row and entries, inside a transaction. A taken id leaves the table as it was. */
export async function insertSession(
  c: PgClient,
  { header, entries, summary, searchTexts }: NewSession,
  insertChunk: number,
  within?: (sql: TxSql) => DriverStep<void>,
): Promise<InsertOutcome> {
  const fixed = [summary.owner, header.id, summary.cwd, summary.parentSession ?? null, summary.createdAt];
  const params = [...fixed, JSON.stringify(header), ...mutableColumns(summary)];
  const pk = (await c.query(SQL.insertSession, params)).rows[0]?.pk;
  if (pk === undefined) {
    const taken = await c.query(SQL.findSession, [summary.owner, header.id]);
    return { inserted: false, existingRevision: Number(taken.rows[0]?.revision ?? 0) };
  }
  await insertEntries(c, pk, 0, entries, insertChunk);
  await indexEntries(c, pk, entries, searchTexts);
  if (within) await within(new PgTxSql(c));
  return { inserted: true };
}

/** A row of a path read: its seq orders it. */
interface PathRow extends Record<string, unknown> {
  seq: number;
  payload: unknown;
}

/**
 * Entries get seq = storedCount + 1, + 2, …, and their run starts (path-runs.ts), a chunk of rows
 * per INSERT (parallel arrays, unnested).
 */
async function insertEntries(
  c: PgClient,
  pk: unknown,
  storedCount: number,
  entries: readonly SessionEntry[],
  chunk: number,
): Promise<void> {
  const starts = runStarts(entries, storedCount);
  const firstParent = entries[0]?.parentId ?? null;
  for (let start = 0; start < entries.length; start += chunk) {
    const part = entries.slice(start, start + chunk);
    await c.query(SQL.insertEntries, [
      pk,
      part.map((e) => e.id),
      part.map((_, i) => storedCount + start + i + 1),
      part.map((e) => e.parentId),
      part.map((e) => e.type),
      part.map(entryJson),
      storedCount,
      firstParent,
      starts.slice(start, start + chunk),
    ]);
  }
}

/** An entry's `entry_key` column: "<session pk>/<entry id>" (entry ids are safe ids: never a "/"). */
function entryKey(pk: unknown, entryId: string): string {
  return `${String(pk)}/${entryId}`;
}
