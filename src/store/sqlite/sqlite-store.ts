import type { SessionEntry, SessionHeader } from "../../core/entry.js";
import { ValidationError } from "../../core/errors.js";
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
import { migrate } from "./schema.js";
import { SQL } from "./sql.js";
import type { SqliteDatabase, SqliteStatement, SqliteStoreOptions } from "./sqlite-config.js";

/**
 * `SessionStore` on SQLite (better-sqlite3 12, WAL). Every write runs in a `BEGIN IMMEDIATE`
 * transaction (shared by the writes queued in the same event-loop turn, each in its own savepoint),
 * so writes to one session are atomic and serialized, also across processes.
 *
 * @example
 * const store = new SqliteStore({ path: "data/sessions.db" });
 * await store.init();
 */
export class SqliteStore implements SessionStore {
  readonly kind = "sqlite";
  readonly capabilities: StoreCapabilities = Object.freeze({ multiProcess: true, persistent: true });
  private readonly options: Readonly<SqliteStoreOptions>;
  private db: SqliteDatabase | null = null;
  private statements = new Map<string, SqliteStatement>();
  private pendingWrites: Array<{
    fn: () => unknown;
    resolve: (value: unknown) => void;
    reject: (error: unknown) => void;
  }> = [];

  constructor(options: SqliteStoreOptions = {}) {
    this.options = Object.freeze({ ...options });
  }

  async init(): Promise<void> {
    if (this.db) return;
    const db = await this.open();
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    // PRAGMA takes no parameters; the value is checked to be an integer, so only digits reach the SQL.
    db.pragma(`busy_timeout = ${busyTimeout(this.options.busyTimeoutMs)}`);
    migrate(db);
    this.db = db;
  }

  async close(): Promise<void> {
    const db = this.db;
    this.db = null;
    this.statements.clear();
    // A database handed in by the caller is the caller's to close.
    if (db && !this.options.database) db.close();
  }

  async createSession(owner: string, init?: CreateSessionInput): Promise<SessionSummary> {
    const header = buildHeader(init);
    return this.write(() => this.insertSession(requireOwner(owner), header, [], null));
  }

  async loadSession(owner: string, sessionId: string, options?: ReadOptions): Promise<StoredSession> {
    return this.read(() => {
      const row = this.findRow(owner, sessionId, options?.includeDeleted);
      const entries = this.all(SQL.entriesInOrder, row.pk, 0, -1).map((r) => payloadToEntry(r.payload));
      return { summary: rowToSummary(row), header: rowHeader(row), entries };
    });
  }

  async getSummary(owner: string, sessionId: string, options?: ReadOptions): Promise<SessionSummary> {
    return rowToSummary(this.findRow(owner, sessionId, options?.includeDeleted));
  }

  async listSessions(owner: string, options?: ListOptions): Promise<Page<SessionSummary>> {
    const query = normalizeListOptions(options);
    const after = query.after ?? LIST_START;
    const rows = this.all(SQL.list, {
      owner: requireOwner(owner),
      state: query.state,
      search: query.search,
      afterModified: after.modifiedAt,
      afterId: after.id,
      limit: query.limit + 1,
    }) as unknown as SessionRow[];
    return toPage(rows.map(rowToSummary), query.limit);
  }

  async appendEntries(
    owner: string,
    sessionId: string,
    entries: SessionEntry[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    const batch = validateBatch(entries);
    return this.write(() => {
      const row = this.findRow(owner, sessionId);
      const lookup = this.all(SQL.entriesByIds, row.pk, JSON.stringify(idsToLookUp(batch)));
      const existing = new Map(lookup.map((r) => [r.id as string, payloadToEntry(r.payload)]));
      const plan = planAppend(batch, existing, row.leaf_id, options.moveLeaf ?? true);
      const summary = rowToSummary(row);
      if (!plan.changed) return { ...result(summary), appended: [], skipped: plan.skipped };
      checkRevision(options.expectedRevision, summary.revision);
      this.insertEntries(row.pk, summary.entryCount, plan.toInsert);
      const next = changed(summary, { ...applyEntries(summary, plan.toInsert), leafId: plan.leafId });
      this.update(row.pk, next);
      return { ...result(next), appended: plan.toInsert.map((e) => e.id), skipped: plan.skipped };
    });
  }

  async setLeaf(
    owner: string,
    sessionId: string,
    leafId: string | null,
    options: WriteOptions = {},
  ): Promise<WriteResult> {
    return this.write(() => {
      const row = this.findRow(owner, sessionId);
      if (leafId !== null && !this.get(SQL.entryExists, row.pk, leafId))
        throw entryNotFound(sessionId, leafId);
      return this.change(row, options, row.leaf_id === leafId ? null : { leafId });
    });
  }

  async readBranch(owner: string, sessionId: string, leafId?: string | null): Promise<SessionEntry[]> {
    return this.read(() => {
      const row = this.findRow(owner, sessionId);
      const start = leafId === undefined ? row.leaf_id : leafId;
      if (start === null) return [];
      const path = this.all(SQL.branch, { session: row.pk, leaf: start }).map((r) =>
        payloadToEntry(r.payload),
      );
      if (path.length === 0) throw entryNotFound(sessionId, start);
      return path;
    });
  }

  async readEntries(owner: string, sessionId: string, options?: EntryPageOptions): Promise<EntryPage> {
    const { after, limit } = normalizeEntryPage(options);
    return this.read(() => {
      const row = this.findRow(owner, sessionId);
      const rows = this.all(SQL.entriesInOrder, row.pk, after, limit);
      const last = rows[rows.length - 1];
      const lastSeq = last ? Number(last.seq) : after;
      return {
        entries: rows.map((r) => payloadToEntry(r.payload)),
        nextAfter: lastSeq < row.entry_count ? lastSeq : null,
      };
    });
  }

  async deleteSession(owner: string, sessionId: string, options: WriteOptions = {}): Promise<WriteResult> {
    return this.write(() => {
      const row = this.findRow(owner, sessionId, true);
      return this.change(row, options, row.deleted_at === null ? { deletedAt: nowIso() } : null);
    });
  }

  async restoreSession(owner: string, sessionId: string, options: WriteOptions = {}): Promise<WriteResult> {
    return this.write(() => {
      const row = this.findRow(owner, sessionId, true);
      return this.change(row, options, row.deleted_at === null ? null : { deletedAt: null });
    });
  }

  async purgeSession(owner: string, sessionId: string): Promise<void> {
    await this.write(() => {
      const row = this.findRow(owner, sessionId, true);
      this.run(SQL.deleteEntries, row.pk);
      this.run(SQL.deleteSession, row.pk);
    });
  }

  async purgeDeletedBefore(cutoff: Date): Promise<Array<{ owner: string; sessionId: string }>> {
    return this.write(() => {
      const rows = this.all(SQL.deletedBefore, cutoff.toISOString());
      for (const row of rows) {
        this.run(SQL.deleteEntries, row.pk);
        this.run(SQL.deleteSession, row.pk);
      }
      return rows.map((row) => ({ owner: row.owner as string, sessionId: row.id as string }));
    });
  }

  async exportJsonl(owner: string, sessionId: string): Promise<string> {
    const { header, entries, summary } = await this.loadSession(owner, sessionId);
    return exportSessionJsonl(header, entries, summary.leafId);
  }

  async importJsonl(owner: string, jsonl: string, options?: ImportOptions): Promise<SessionSummary> {
    const imported = parseImport(jsonl, options);
    return this.write(() =>
      this.insertSession(requireOwner(owner), imported.header, imported.entries, imported.leafId),
    );
  }

  private insertSession(
    owner: string,
    header: SessionHeader,
    entries: SessionEntry[],
    leafId: string | null,
  ) {
    const taken = this.get(SQL.findSession, owner, header.id) as SessionRow | undefined;
    if (taken) throw sessionExists(header.id, taken.revision);
    const base = initialSummary(owner, header, nowIso());
    const summary: SessionSummary = { ...base, ...applyEntries(base, entries), leafId };
    const inserted = this.get(
      SQL.insertSession,
      owner,
      header.id,
      summary.cwd,
      summary.parentSession ?? null,
      summary.createdAt,
      JSON.stringify(header),
      ...mutableColumns(summary),
    ) as { pk: number };
    this.insertEntries(inserted.pk, 0, entries);
    return summary;
  }

  private insertEntries(pk: number | string, count: number, entries: readonly SessionEntry[]): void {
    const insert = this.statement(SQL.insertEntry);
    entries.forEach((entry, i) => {
      insert.run(pk, entry.id, count + i + 1, entry.parentId, entry.type, entryJson(entry));
    });
  }

  /** Applies a change to the session row (null: nothing to change, so no revision check). */
  private change(
    row: SessionRow,
    options: WriteOptions,
    change: Partial<SessionSummary> | null,
  ): WriteResult {
    const summary = rowToSummary(row);
    if (!change) return result(summary);
    checkRevision(options.expectedRevision, summary.revision);
    const next = changed(summary, change);
    this.update(row.pk, next);
    return result(next);
  }

  private update(pk: number | string, summary: SessionSummary): void {
    this.run(SQL.updateSession, ...mutableColumns(summary), pk);
  }

  private findRow(owner: string, sessionId: string, includeDeleted = false): SessionRow {
    const row = this.get(SQL.findSession, requireOwner(owner), sessionId) as SessionRow | undefined;
    if (!row || (row.deleted_at !== null && !includeDeleted)) throw sessionNotFound(sessionId);
    return row;
  }

  /**
   * Group commit: writes queued in one turn of the event loop share one BEGIN IMMEDIATE … COMMIT,
   * each inside its own savepoint, so one write's error (a conflict, a bad batch) undoes only that
   * write. A commit is the costly part of a small write; concurrent requests now share it.
   */
  private write<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pendingWrites.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (this.pendingWrites.length === 1) setImmediate(() => this.flushWrites());
    });
  }

  private flushWrites(): void {
    const batch = this.pendingWrites;
    this.pendingWrites = [];
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      const db = this.connection();
      db.transaction(() => {
        for (const item of batch) {
          try {
            outcomes.push({ ok: true, value: db.transaction(item.fn)() });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      }).immediate();
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    for (const [i, item] of batch.entries()) {
      const outcome = outcomes[i];
      if (outcome?.ok) item.resolve(outcome.value);
      else item.reject(outcome?.error);
    }
  }

  /** Several reads as one snapshot (a deferred transaction). */
  private read<T>(fn: () => T): T {
    const db = this.connection();
    db.exec("BEGIN");
    try {
      return fn();
    } finally {
      db.exec("COMMIT");
    }
  }

  private connection(): SqliteDatabase {
    if (!this.db) throw new Error("SqliteStore: call init() first");
    return this.db;
  }

  private statement(sql: string): SqliteStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.connection().prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private run(sql: string, ...params: unknown[]): void {
    this.statement(sql).run(...params);
  }

  private get(sql: string, ...params: unknown[]): unknown {
    return this.statement(sql).get(...params);
  }

  private all(sql: string, ...params: unknown[]): Array<Record<string, unknown>> {
    return this.statement(sql).all(...params) as Array<Record<string, unknown>>;
  }

  private async open(): Promise<SqliteDatabase> {
    const given = this.options.database;
    if (given) return typeof given === "function" ? await given() : given;
    // The driver loads only when the store opens a file itself.
    const { default: Database } = await import("better-sqlite3");
    return new Database(this.options.path ?? ":memory:") as unknown as SqliteDatabase;
  }
}

function busyTimeout(value: number | undefined): number {
  const ms = value ?? 5000;
  if (!Number.isSafeInteger(ms) || ms < 0) {
    throw new ValidationError("invalid_argument", "busyTimeoutMs must be a non-negative integer");
  }
  return ms;
}

function result(summary: SessionSummary): WriteResult {
  return { revision: summary.revision, leafId: summary.leafId };
}
