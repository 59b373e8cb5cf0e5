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
import type { DriverStep } from "../engine/step.js";
import { runPostgresMigrations } from "../migrations.js";
import type { SearchQuery } from "../search/search-query.js";
import { LIST_START, rowToSummary, type SessionRow } from "../sql/rows.js";
import type { SessionSummary, StoreCapabilities, TxSql } from "../store.js";
import { inTransaction, type PgPool } from "./connection.js";
import type { PostgresStoreOptions } from "./postgres-config.js";
import { PgGroupCommit } from "./postgres-group-commit.js";
import { drainSearchBacklog, searchPostgres } from "./postgres-search.js";
import { insertSession, PgSessionTx } from "./postgres-tx.js";
import { PgTxSql } from "./postgres-tx-sql.js";
import { POSTGRES_SCHEMA } from "./schema.js";
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
export class PostgresStore extends EngineStore<SessionRow> {
  /** Collection and archive, when the store was given a blob store (`options.blobs`); else null. */
  readonly blobs: BlobMaintenance | null;

  constructor(options: PostgresStoreOptions = {}) {
    const driver = new PostgresDriver(options);
    super(driver, sqlPayloads(driver, options.blobs));
    this.blobs = blobMaintenance(this.payloads as SqlPayloads | undefined, this);
  }
}

class PostgresDriver implements StoreDriver<SessionRow> {
  readonly kind = "postgres";
  readonly capabilities: StoreCapabilities = { persistent: true, transactions: true };
  private readonly options: Readonly<PostgresStoreOptions>;
  private readonly insertChunk: number;
  private pool: PgPool | null = null;
  private readonly writes = new PgGroupCommit(
    () => this.connection(),
    (key, work) => this.writeAlone(key, work),
  );

  constructor(options: PostgresStoreOptions) {
    this.options = Object.freeze({ ...options });
    this.insertChunk = options.insertChunk ?? 5000;
  }

  async init(): Promise<void> {
    if (this.pool) return;
    const pool = await this.open();
    await runPostgresMigrations(pool, POSTGRES_SCHEMA);
    // Sessions stored before the search index existed (schema step 3) are indexed before first use.
    await drainSearchBacklog(pool);
    this.pool = pool;
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    // A pool handed in by the caller is the caller's to end.
    if (pool && !this.options.pool) await pool.end();
  }

  /** Concurrent writes to different sessions share transactions (postgres-group-commit.ts). */
  writeSession<T>(key: SessionKey, work: (tx: WriteTx<SessionRow>) => DriverStep<T>): Promise<T> {
    return this.writes.run(key, work);
  }

  /** One write in a transaction of its own. */
  private writeAlone<T>(key: SessionKey, work: (tx: WriteTx<SessionRow>) => DriverStep<T>): Promise<T> {
    const options = { lock: true, insertChunk: this.insertChunk };
    return inTransaction(this.connection(), "read committed", async (c) =>
      work(new PgSessionTx(c, key, options)),
    );
  }

  /** Several reads as one snapshot. */
  readSession<T>(key: SessionKey, work: (tx: ReadTx<SessionRow>) => DriverStep<T>): Promise<T> {
    const options = { lock: false, insertChunk: this.insertChunk };
    return inTransaction(this.connection(), "repeatable read read only", async (c) =>
      work(new PgSessionTx(c, key, options)),
    );
  }

  async findSummary(key: SessionKey): Promise<SessionSummary | null> {
    const { rows } = await this.connection().query(SQL.findSession, [key.owner, key.sessionId]);
    const row = rows[0] as SessionRow | undefined;
    return row ? rowToSummary(row) : null;
  }

  insertSession(session: NewSession, within?: (sql: TxSql) => DriverStep<void>): Promise<InsertOutcome> {
    return inTransaction(this.connection(), "read committed", (c) =>
      insertSession(c, session, this.insertChunk, within),
    );
  }

  async listSessions(owner: string, query: ListQuery): Promise<SessionSummary[]> {
    const after = query.after ?? LIST_START;
    const params = [owner, after.modifiedAt, after.id, query.state, query.search, query.limit + 1];
    const { rows } = await this.connection().query(SQL.list, params);
    return (rows as unknown as SessionRow[]).map(rowToSummary);
  }

  purgeDeletedBefore(
    cutoff: string,
    within?: (purged: PurgedSession[], sql: TxSql) => DriverStep<void>,
  ): Promise<PurgedSession[]> {
    return inTransaction(this.connection(), "read committed", async (c) => {
      // One statement: the rows it deletes are the ones it returns.
      const { rows } = await c.query(SQL.purgeDeletedBefore, [cutoff]);
      const purged = rows.map((row) => ({ owner: row.owner as string, sessionId: row.id as string }));
      if (within) await within(purged, new PgTxSql(c));
      return purged;
    });
  }

  runSql<T>(work: (sql: TxSql) => DriverStep<T>): Promise<T> {
    return inTransaction(this.connection(), "read committed", async (c) => work(new PgTxSql(c)));
  }

  search(query: SearchQuery): Promise<SearchHit[]> {
    return searchPostgres(this.connection(), query);
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
