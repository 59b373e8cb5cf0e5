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
import { type DriverStep, syncValue } from "../engine/step.js";
import { entryJson } from "../engine/validate-batch.js";
import type { SearchTexts } from "../search/search-docs.js";
import {
  mutableColumns,
  payloadToEntry,
  rowHeader,
  rowToSummary,
  type SessionRow,
  tailOfRows,
} from "../sql/rows.js";
import type { SessionSummary, TxSql } from "../store.js";
import { SQL } from "./sql.js";
import { dropIndex, indexEntries } from "./sqlite-search.js";
import type { Statements } from "./statements.js";

/**
 * One session's reads and writes on the SQLite connection. It runs inside the driver's transaction
 * (a shared BEGIN IMMEDIATE for writes, see group-commit.ts; a deferred BEGIN for reads), so the row
 * `find` returns stays as read until the work ends.
 */
export class SqliteSessionTx implements WriteTx<SessionRow> {
  constructor(
    private readonly q: Statements,
    private readonly key: SessionKey,
    /** The same connection for the caller's work inside the write (see `InTransaction`). */
    readonly sql: TxSql,
  ) {}

  find(): FoundSession<SessionRow> | null {
    const row = findRow(this.q, this.key);
    return row ? { summary: rowToSummary(row), ref: row } : null;
  }

  header(row: SessionRow): SessionHeader {
    return rowHeader(row);
  }

  entries(row: SessionRow, after: number, limit: number | null): SessionEntry[] {
    // LIMIT -1: SQLite's "no limit".
    return this.q.all(SQL.entriesInOrder, row.pk, after, limit ?? -1).map((r) => payloadToEntry(r.payload));
  }

  branch(row: SessionRow, leafId: string): SessionEntry[] {
    return this.q.all(SQL.branch, { session: row.pk, leaf: leafId }).map((r) => payloadToEntry(r.payload));
  }

  branchSince(row: SessionRow, leafId: string, knownId: string): BranchTail {
    return tailOfRows(
      this.q.all(SQL.branchSince, { session: row.pk, leaf: leafId, known: knownId }),
      knownId,
    );
  }

  entriesByIds(row: SessionRow, ids: readonly string[]): Map<string, StoredId> {
    const rows = this.q.all(SQL.entriesByIds, row.pk, JSON.stringify(ids));
    return new Map(rows.map((r) => [r.id as string, payloadToEntry(r.payload)]));
  }

  hasEntry(row: SessionRow, entryId: string): boolean {
    return this.q.get(SQL.entryExists, row.pk, entryId) !== undefined;
  }

  insertEntries(
    row: SessionRow,
    entries: readonly SessionEntry[],
    storedCount: number,
    searchTexts?: SearchTexts,
  ): void {
    insertEntries(this.q, row.pk, storedCount, entries);
    indexEntries(this.q, row.pk, entries, searchTexts);
  }

  updateSession(row: SessionRow, next: SessionSummary): void {
    this.q.run(SQL.updateSession, ...mutableColumns(next), row.pk);
  }

  purgeSession(row: SessionRow): void {
    purgeRow(this.q, row.pk);
  }
}

export function findRow(q: Statements, key: SessionKey): SessionRow | undefined {
  return q.get<SessionRow>(SQL.findSession, key.owner, key.sessionId);
}

/** A new session's row and entries; inside a write transaction. */
export function insertSession(
  q: Statements,
  { header, entries, summary, searchTexts }: NewSession,
  sql: TxSql,
  within?: (sql: TxSql) => DriverStep<void>,
): InsertOutcome {
  const taken = findRow(q, { owner: summary.owner, sessionId: header.id });
  if (taken) return { inserted: false, existingRevision: Number(taken.revision) };
  const fixed = [summary.owner, header.id, summary.cwd, summary.parentSession ?? null, summary.createdAt];
  const inserted = q.get(SQL.insertSession, ...fixed, JSON.stringify(header), ...mutableColumns(summary));
  const pk = (inserted as { pk: number }).pk;
  insertEntries(q, pk, 0, entries);
  indexEntries(q, pk, entries, searchTexts);
  if (within) syncValue(within(sql), "sqlite");
  return { inserted: true };
}

export function purgeRow(q: Statements, pk: number | string): void {
  dropIndex(q, pk);
  q.run(SQL.deleteEntries, pk);
  q.run(SQL.deleteSession, pk);
}

/** Entries get seq = storedCount + 1, + 2, … : storage order, and `readEntries` positions. */
function insertEntries(
  q: Statements,
  pk: number | string,
  storedCount: number,
  entries: readonly SessionEntry[],
): void {
  const insert = q.statement(SQL.insertEntry);
  entries.forEach((entry, i) => {
    insert.run(pk, entry.id, storedCount + i + 1, entry.parentId, entry.type, entryJson(entry));
  });
}
