import { PendingWords } from "./pending-words.js";
import type { SqliteDatabase, SqliteStatement } from "./sqlite-config.js";

/** Runs fixed SQL text on one connection, each text prepared once (preparing costs more than a small query). */
export class Statements {
  private readonly prepared = new Map<string, SqliteStatement>();
  /** The search words of the connection's open write transaction, written at its end. */
  readonly searchWords = new PendingWords(this);

  constructor(readonly db: SqliteDatabase) {}

  run(sql: string, ...params: unknown[]): void {
    this.statement(sql).run(...params);
  }

  get<T = Record<string, unknown>>(sql: string, ...params: unknown[]): T | undefined {
    return this.statement(sql).get(...params) as T | undefined;
  }

  all<T = Record<string, unknown>>(sql: string, ...params: unknown[]): T[] {
    return this.statement(sql).all(...params) as T[];
  }

  /** The prepared statement itself, for a loop that runs it many times. */
  statement(sql: string): SqliteStatement {
    let statement = this.prepared.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.prepared.set(sql, statement);
    }
    return statement;
  }
}
