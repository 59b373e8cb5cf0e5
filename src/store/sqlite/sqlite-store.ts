import { ValidationError } from "../../core/errors.js";
import type { SearchHit } from "../../core/search-hit.js";
import { type BlobMaintenance, blobMaintenance, sqlPayloads } from "../blob/blob-maintenance.js";
import type { SqlPayloads } from "../blob/sql-payloads.js";
import type { ListQuery } from "../engine/cursor.js";
import type {
  InsertOutcome,
  NewSession,
  PurgedSession,
  ReadTx,
  SessionKey,
  StoreDriver,
  WriteTx,
} from "../engine/driver.js";
import { EngineStore } from "../engine/engine-store.js";
import { type DriverStep, syncValue } from "../engine/step.js";
import { runSqliteMigrations } from "../migrations.js";
import type { SearchQuery } from "../search/search-query.js";
import { LIST_START, rowToSummary, type SessionRow } from "../sql/rows.js";
import type { InTransaction, PurgedSessions, SessionSummary, StoreCapabilities, TxSql } from "../store.js";
import { GroupCommit } from "./group-commit.js";
import { SQLITE_SCHEMA } from "./schema.js";
import { SQL } from "./sql.js";
import type { SqliteDatabase, SqliteStoreOptions } from "./sqlite-config.js";
import { drainSearchBacklog, searchSqlite } from "./sqlite-search.js";
import { findRow, insertSession, purgeRow, SqliteSessionTx } from "./sqlite-tx.js";
import { SqliteTxSql } from "./sqlite-tx-sql.js";
import { Statements } from "./statements.js";

/**
 * `SessionStore` on SQLite (better-sqlite3 12, WAL). Every write runs in a `BEGIN IMMEDIATE`
 * transaction (shared by the writes queued in the same event-loop turn, each in its own savepoint),
 * so writes to one session are atomic and serialized, also across processes.
 *
 * @example
 * const store = new SqliteStore({ path: "data/sessions.db" });
 * await store.init();
 */
export class SqliteStore extends EngineStore<SessionRow> {
  private readonly sqlite: SqliteDriver;
  /** Collection and archive, when the store was given a blob store (`options.blobs`); else null. */
  readonly blobs: BlobMaintenance | null;

  constructor(options: SqliteStoreOptions = {}) {
    const driver = new SqliteDriver(options);
    super(driver, sqlPayloads(driver, options.blobs));
    this.sqlite = driver;
    this.blobs = blobMaintenance(this.payloads as SqlPayloads | undefined, this);
  }

  override async purgeSession(
    owner: string,
    sessionId: string,
    options?: InTransaction<null>,
  ): Promise<void> {
    await super.purgeSession(owner, sessionId, options);
    this.sqlite.forgetPurged();
  }

  override async purgeDeletedBefore(
    cutoff: Date,
    options?: InTransaction<PurgedSessions>,
  ): Promise<PurgedSessions> {
    const purged = await super.purgeDeletedBefore(cutoff, options);
    if (purged.length > 0) this.sqlite.forgetPurged();
    return purged;
  }
}

class SqliteDriver implements StoreDriver<SessionRow> {
  readonly kind = "sqlite";
  readonly capabilities: StoreCapabilities = { persistent: true, transactions: true };
  private readonly options: Readonly<SqliteStoreOptions>;
  private q: Statements | null = null;
  private sql: SqliteTxSql | null = null;
  private readonly writes = new GroupCommit(() => {
    const q = this.statements();
    return { db: q.db, deferred: q.searchWords };
  });

  constructor(options: SqliteStoreOptions) {
    this.options = Object.freeze({ ...options });
  }

  async init(): Promise<void> {
    if (this.q) return;
    const db = await this.open();
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    // Each write of a group commit runs in a savepoint, whose sub-journal (the pages it changes,
    // as they were) spills to a temporary file past 64 KiB: a pwrite per page, about 7% of an
    // append's CPU in the service (perf). In memory it costs no system call and leaves no copy.
    db.pragma("temp_store = MEMORY");
    // A purge must leave nothing to find: deleted rows are overwritten with zeros, not left in
    // free pages (the WAL is truncated after each purge, see \`forgetPurged\`).
    db.pragma("secure_delete = ON");
    // PRAGMA takes no parameters; the value is checked to be an integer, so only digits reach the SQL.
    db.pragma(`busy_timeout = ${busyTimeout(this.options.busyTimeoutMs)}`);
    runSqliteMigrations(db, SQLITE_SCHEMA);
    const q = new Statements(db);
    // Sessions stored before the search index existed (schema step 3) are indexed before first use.
    drainSearchBacklog(q);
    this.q = q;
    this.sql = new SqliteTxSql(q);
  }

  async close(): Promise<void> {
    const db = this.q?.db;
    this.q = null;
    this.sql = null;
    // A database handed in by the caller is the caller's to close.
    if (db && !this.options.database) db.close();
  }

  writeSession<T>(key: SessionKey, work: (tx: WriteTx<SessionRow>) => DriverStep<T>): Promise<T> {
    return this.writes.run(() => syncValue(work(this.tx(key)), this.kind));
  }

  readSession<T>(key: SessionKey, work: (tx: ReadTx<SessionRow>) => DriverStep<T>): T {
    const q = this.statements();
    // Several reads as one snapshot: a deferred transaction.
    q.db.exec("BEGIN");
    try {
      return syncValue(work(this.tx(key)), this.kind);
    } finally {
      q.db.exec("COMMIT");
    }
  }

  findSummary(key: SessionKey): SessionSummary | null {
    const row = findRow(this.statements(), key);
    return row ? rowToSummary(row) : null;
  }

  insertSession(session: NewSession, within?: (sql: TxSql) => DriverStep<void>): Promise<InsertOutcome> {
    return this.writes.run(() => insertSession(this.statements(), session, this.txSql(), within));
  }

  listSessions(owner: string, query: ListQuery): SessionSummary[] {
    const after = query.after ?? LIST_START;
    const rows = this.statements().all<SessionRow>(SQL.list, {
      owner,
      state: query.state,
      search: query.search,
      afterModified: after.modifiedAt,
      afterId: after.id,
      limit: query.limit + 1,
    });
    return rows.map(rowToSummary);
  }

  purgeDeletedBefore(
    cutoff: string,
    within?: (purged: PurgedSession[], sql: TxSql) => DriverStep<void>,
  ): Promise<PurgedSession[]> {
    return this.writes.run(() => {
      const q = this.statements();
      const rows = q.all<SessionRow>(SQL.deletedBefore, cutoff);
      for (const row of rows) purgeRow(q, row.pk);
      const purged = rows.map((row) => ({ owner: row.owner, sessionId: row.id }));
      if (within) syncValue(within(purged, this.txSql()), this.kind);
      return purged;
    });
  }

  runSql<T>(work: (sql: TxSql) => DriverStep<T>): Promise<T> {
    return this.writes.run(() => syncValue(work(this.txSql()), this.kind));
  }

  /** The hits and their branch state from one snapshot. */
  search(query: SearchQuery): SearchHit[] {
    const q = this.statements();
    q.db.exec("BEGIN");
    try {
      return searchSqlite(q, query);
    } finally {
      q.db.exec("COMMIT");
    }
  }

  /**
   * After a purge: copies the WAL into the database and truncates it, so the purged rows' old
   * page images do not linger there (secure_delete has zeroed them in the database). Best effort:
   * a reader holding an old snapshot keeps the frames it needs until the next purge.
   */
  forgetPurged(): void {
    this.q?.db.pragma("wal_checkpoint(TRUNCATE)");
  }

  private tx(key: SessionKey): SqliteSessionTx {
    return new SqliteSessionTx(this.statements(), key, this.txSql());
  }

  private txSql(): SqliteTxSql {
    if (!this.sql) throw new Error("SqliteStore: call init() first");
    return this.sql;
  }

  private statements(): Statements {
    if (!this.q) throw new Error("SqliteStore: call init() first");
    return this.q;
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
