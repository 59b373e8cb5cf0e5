import type { SessionEntry, SessionHeader } from "../../core/entry.js";
import { nowIso } from "../../core/ids.js";
import { planAppend } from "../append-plan.js";
import { normalizeEntryPage, normalizeListOptions, toPage } from "../cursor.js";
import { exportSessionJsonl, parseImport } from "../jsonl-transfer.js";
import { checkRevision, entryNotFound, requireOwner, sessionExists, sessionNotFound } from "../rules.js";
import {
  changed,
  LIST_START,
  mutableColumns,
  payloadToEntry,
  rowHeader,
  rowToSummary,
  type SessionRow,
} from "../sql-rows.js";
import type {
  AppendOptions,
  AppendResult,
  CreateSessionInput,
  EntryPage,
  EntryPageOptions,
  ImportOptions,
  ListOptions,
  Page,
  ReadOptions,
  SessionStore,
  SessionSummary,
  StoreCapabilities,
  StoredSession,
  WriteOptions,
  WriteResult,
} from "../store.js";
import { applyEntries, buildHeader, initialSummary } from "../summary.js";
import { entryJson, idsToLookUp, validateBatch } from "../validate-batch.js";
import { inTransaction, type PgClient, type PgPool } from "./connection.js";
import type { PostgresStoreOptions } from "./postgres-config.js";
import { migrate } from "./schema.js";
import { SQL } from "./sql.js";

/**
 * `SessionStore` on PostgreSQL (pg 8). A write locks its session row (`SELECT … FOR UPDATE`) for
 * one transaction, so writers to one session queue up, across processes and server instances,
 * and `expectedRevision` is checked against the revision they will actually replace.
 *
 * @example
 * const store = new PostgresStore({ connectionString: process.env.DATABASE_URL });
 * await store.init();
 */
export class PostgresStore implements SessionStore {
  readonly kind = "postgres";
  readonly capabilities: StoreCapabilities = Object.freeze({ multiProcess: true, persistent: true });
  private readonly options: Readonly<PostgresStoreOptions>;
  private pool: PgPool | null = null;

  constructor(options: PostgresStoreOptions = {}) {
    this.options = Object.freeze({ ...options });
  }

  async init(): Promise<void> {
    if (this.pool) return;
    const pool = await this.open();
    await inTransaction(pool, "read committed", migrate);
    this.pool = pool;
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    // A pool handed in by the caller is the caller's to end.
    if (pool && !this.options.pool) await pool.end();
  }

  async createSession(owner: string, init?: CreateSessionInput): Promise<SessionSummary> {
    const header = buildHeader(init);
    return this.write((c) => this.insertSession(c, requireOwner(owner), header, [], null));
  }

  async loadSession(owner: string, sessionId: string, options?: ReadOptions): Promise<StoredSession> {
    return this.read(async (c) => {
      const row = await findRow(c, owner, sessionId, options?.includeDeleted);
      const { rows } = await c.query(SQL.entriesInOrder, [row.pk, 0, null]);
      return {
        summary: rowToSummary(row),
        header: rowHeader(row),
        entries: rows.map((r) => payloadToEntry(r.payload)),
      };
    });
  }

  async getSummary(owner: string, sessionId: string, options?: ReadOptions): Promise<SessionSummary> {
    return rowToSummary(await findRow(this.connection(), owner, sessionId, options?.includeDeleted));
  }

  async listSessions(owner: string, options?: ListOptions): Promise<Page<SessionSummary>> {
    const query = normalizeListOptions(options);
    const after = query.after ?? LIST_START;
    const params = [
      requireOwner(owner),
      after.modifiedAt,
      after.id,
      query.state,
      query.search,
      query.limit + 1,
    ];
    const { rows } = await this.connection().query(SQL.list, params);
    return toPage((rows as unknown as SessionRow[]).map(rowToSummary), query.limit);
  }

  async appendEntries(
    owner: string,
    sessionId: string,
    entries: SessionEntry[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    const batch = validateBatch(entries);
    return this.write(async (c) => {
      const row = await findRow(c, owner, sessionId, false, true);
      const keys = idsToLookUp(batch).map((entryId) => entryKey(row.pk, entryId));
      const lookup = await c.query(SQL.entriesByKeys, [keys]);
      const existing = new Map(lookup.rows.map((r) => [r.id as string, payloadToEntry(r.payload)]));
      const plan = planAppend(batch, existing, row.leaf_id, options.moveLeaf ?? true);
      const summary = rowToSummary(row);
      if (!plan.changed) return { ...result(summary), appended: [], skipped: plan.skipped };
      checkRevision(options.expectedRevision, summary.revision);
      await this.insertEntries(c, row.pk, summary.entryCount, plan.toInsert);
      const next = changed(summary, { ...applyEntries(summary, plan.toInsert), leafId: plan.leafId });
      await update(c, row.pk, next);
      return { ...result(next), appended: plan.toInsert.map((e) => e.id), skipped: plan.skipped };
    });
  }

  async setLeaf(
    owner: string,
    sessionId: string,
    leafId: string | null,
    options: WriteOptions = {},
  ): Promise<WriteResult> {
    return this.write(async (c) => {
      const row = await findRow(c, owner, sessionId, false, true);
      if (leafId !== null && (await c.query(SQL.entryExists, [entryKey(row.pk, leafId)])).rows.length === 0) {
        throw entryNotFound(sessionId, leafId);
      }
      return change(c, row, options, row.leaf_id === leafId ? null : { leafId });
    });
  }

  async readBranch(owner: string, sessionId: string, leafId?: string | null): Promise<SessionEntry[]> {
    return this.read(async (c) => {
      const row = await findRow(c, owner, sessionId);
      const start = leafId === undefined ? row.leaf_id : leafId;
      if (start === null) return [];
      const { rows } = await c.query(SQL.branch, [String(row.pk), start]);
      if (rows.length === 0) throw entryNotFound(sessionId, start);
      return rows.map((r) => payloadToEntry(r.payload));
    });
  }

  async readEntries(owner: string, sessionId: string, options?: EntryPageOptions): Promise<EntryPage> {
    const { after, limit } = normalizeEntryPage(options);
    return this.read(async (c) => {
      const row = await findRow(c, owner, sessionId);
      const { rows } = await c.query(SQL.entriesInOrder, [row.pk, after, limit]);
      const last = rows[rows.length - 1];
      const lastSeq = last ? Number(last.seq) : after;
      const more = lastSeq < Number(row.entry_count);
      return { entries: rows.map((r) => payloadToEntry(r.payload)), nextAfter: more ? lastSeq : null };
    });
  }

  async deleteSession(owner: string, sessionId: string, options: WriteOptions = {}): Promise<WriteResult> {
    return this.write(async (c) => {
      const row = await findRow(c, owner, sessionId, true, true);
      return change(c, row, options, row.deleted_at === null ? { deletedAt: nowIso() } : null);
    });
  }

  async restoreSession(owner: string, sessionId: string, options: WriteOptions = {}): Promise<WriteResult> {
    return this.write(async (c) => {
      const row = await findRow(c, owner, sessionId, true, true);
      return change(c, row, options, row.deleted_at === null ? null : { deletedAt: null });
    });
  }

  async purgeSession(owner: string, sessionId: string): Promise<void> {
    await this.write(async (c) => {
      const row = await findRow(c, owner, sessionId, true, true);
      await c.query(SQL.deleteSession, [row.pk]);
    });
  }

  async purgeDeletedBefore(cutoff: Date): Promise<Array<{ owner: string; sessionId: string }>> {
    const { rows } = await this.connection().query(SQL.purgeDeletedBefore, [cutoff.toISOString()]);
    return rows.map((row) => ({ owner: row.owner as string, sessionId: row.id as string }));
  }

  async exportJsonl(owner: string, sessionId: string): Promise<string> {
    const { header, entries, summary } = await this.loadSession(owner, sessionId);
    return exportSessionJsonl(header, entries, summary.leafId);
  }

  async importJsonl(owner: string, jsonl: string, options?: ImportOptions): Promise<SessionSummary> {
    const imported = parseImport(jsonl, options);
    return this.write((c) =>
      this.insertSession(c, requireOwner(owner), imported.header, imported.entries, imported.leafId),
    );
  }

  private async insertSession(
    c: PgClient,
    owner: string,
    header: SessionHeader,
    entries: SessionEntry[],
    leafId: string | null,
  ): Promise<SessionSummary> {
    const base = initialSummary(owner, header, nowIso());
    const summary: SessionSummary = { ...base, ...applyEntries(base, entries), leafId };
    const { cwd, parentSession, createdAt } = summary;
    const params = [owner, header.id, cwd, parentSession ?? null, createdAt, JSON.stringify(header)];
    const inserted = await c.query(SQL.insertSession, [...params, ...mutableColumns(summary)]);
    const pk = inserted.rows[0]?.pk;
    if (pk === undefined) {
      const taken = await c.query(SQL.findSession, [owner, header.id]);
      throw sessionExists(header.id, Number(taken.rows[0]?.revision ?? 0));
    }
    await this.insertEntries(c, pk, 0, entries);
    return summary;
  }

  private async insertEntries(
    c: PgClient,
    pk: unknown,
    count: number,
    entries: readonly SessionEntry[],
  ): Promise<void> {
    const chunk = this.options.insertChunk ?? 5000;
    for (let start = 0; start < entries.length; start += chunk) {
      const part = entries.slice(start, start + chunk);
      await c.query(SQL.insertEntries, [
        pk,
        part.map((e) => e.id),
        part.map((_, i) => count + start + i + 1),
        part.map((e) => e.parentId),
        part.map((e) => e.type),
        part.map(entryJson),
      ]);
    }
  }

  private write<T>(fn: (client: PgClient) => Promise<T>): Promise<T> {
    return inTransaction(this.connection(), "read committed", fn);
  }

  /** Several reads as one snapshot. */
  private read<T>(fn: (client: PgClient) => Promise<T>): Promise<T> {
    return inTransaction(this.connection(), "repeatable read read only", fn);
  }

  private connection(): PgPool {
    if (!this.pool) throw new Error("PostgresStore: call init() first");
    return this.pool;
  }

  private async open(): Promise<PgPool> {
    const given = this.options.pool;
    if (given) return typeof given === "function" ? await given() : given;
    // The driver loads only when the store connects itself.
    const { default: pg } = await import("pg");
    const max = this.options.maxConnections ?? 10;
    return new pg.Pool({ connectionString: this.options.connectionString, max }) as unknown as PgPool;
  }
}

/** The session row (locked for the transaction when `lock`), or `session_not_found`. */
async function findRow(
  c: Pick<PgClient, "query">,
  owner: string,
  sessionId: string,
  includeDeleted = false,
  lock = false,
): Promise<SessionRow> {
  const { rows } = await c.query(lock ? SQL.lockSession : SQL.findSession, [requireOwner(owner), sessionId]);
  const row = rows[0] as SessionRow | undefined;
  if (!row || (row.deleted_at !== null && !includeDeleted)) throw sessionNotFound(sessionId);
  return row;
}

/** Applies a change to a locked session row (null: nothing to change, so no revision check). */
async function change(
  c: PgClient,
  row: SessionRow,
  options: WriteOptions,
  delta: Partial<SessionSummary> | null,
): Promise<WriteResult> {
  const summary = rowToSummary(row);
  if (!delta) return result(summary);
  checkRevision(options.expectedRevision, summary.revision);
  const next = changed(summary, delta);
  await update(c, row.pk, next);
  return result(next);
}

async function update(c: PgClient, pk: unknown, summary: SessionSummary): Promise<void> {
  await c.query(SQL.updateSession, [...mutableColumns(summary), pk]);
}

/** An entry's `entry_key` column: "<session pk>/<entry id>" (entry ids are safe ids: never a "/"). */
function entryKey(pk: unknown, entryId: string): string {
  return `${String(pk)}/${entryId}`;
}

function result(summary: SessionSummary): WriteResult {
  return { revision: summary.revision, leafId: summary.leafId };
}
