import type { SessionEntry, SessionHeader } from "../../core/entry.js";
import type { BranchTail } from "../engine/driver.js";
import type { SessionSummary } from "../store.js";
import { searchText } from "../summary.js";

/** A row of the `sessions` table, as both SQL backends name its columns. */
export interface SessionRow {
  pk: number | string;
  owner: string;
  id: string;
  revision: number;
  leaf_id: string | null;
  name: string | null;
  cwd: string;
  parent_session: string | null;
  created_at: string;
  modified_at: string;
  deleted_at: string | null;
  header: string | SessionHeader;
  entry_count: number;
  message_count: number;
  first_message: string;
  /** Set while the session's entries are archived in object storage (schema step 2). */
  archived_at?: string | null;
}

export function rowToSummary(row: SessionRow): SessionSummary {
  const summary: SessionSummary = {
    id: row.id,
    owner: row.owner,
    cwd: row.cwd,
    name: row.name ?? undefined,
    parentSession: row.parent_session ?? undefined,
    createdAt: row.created_at,
    modifiedAt: row.modified_at,
    revision: Number(row.revision),
    leafId: row.leaf_id,
    entryCount: Number(row.entry_count),
    messageCount: Number(row.message_count),
    firstMessage: row.first_message,
    deletedAt: row.deleted_at,
  };
  if (row.archived_at) summary.archivedAt = row.archived_at;
  return summary;
}

export function rowHeader(row: Pick<SessionRow, "header">): SessionHeader {
  return typeof row.header === "string" ? (JSON.parse(row.header) as SessionHeader) : row.header;
}

/** A column value that holds an entry: JSON text (SQLite) or already parsed (PostgreSQL `json`). */
export function payloadToEntry(payload: unknown): SessionEntry {
  return (typeof payload === "string" ? JSON.parse(payload) : payload) as SessionEntry;
}

/**
 * A `branchSince` walk's rows (root-first; the stop entry, when met, is the first, without its
 * payload) as the driver's answer.
 */
export function tailOfRows(rows: ReadonlyArray<Record<string, unknown>>, knownId: string): BranchTail {
  const reached = rows[0]?.id === knownId;
  const entries: SessionEntry[] = [];
  for (let i = reached ? 1 : 0; i < rows.length; i++) entries.push(payloadToEntry(rows[i]?.payload));
  return { entries, reached };
}

/** The mutable columns of a session row, in the order of both backends' UPDATE statements. */
export function mutableColumns(summary: SessionSummary): unknown[] {
  return [
    summary.revision,
    summary.leafId,
    summary.name ?? null,
    summary.modifiedAt,
    summary.deletedAt,
    summary.entryCount,
    summary.messageCount,
    summary.firstMessage,
    searchText(summary),
  ];
}

/** Sorts after every ISO timestamp: the first page's cursor, so one row-value comparison serves every page. */
export const LIST_START = { modifiedAt: "~", id: "~" };

/**
 * A path's rows root first: storage order, as a parent is always stored before its child.
 * PostgreSQL's path read returns them so without sorting a megabyte of payloads; SQL promises no
 * order without ORDER BY, so any other order is sorted.
 */
export function seqOrdered<R extends { seq: number }>(rows: R[]): R[] {
  for (let i = 1; i < rows.length; i++) {
    if ((rows[i - 1] as R).seq >= (rows[i] as R).seq) return rows.sort((a, b) => a.seq - b.seq);
  }
  return rows;
}
