import type { TxSql } from "../store.js";
import type { PgClient } from "./connection.js";

/** A client in a store transaction as `TxSql`: work on it commits or rolls back with the write. */
export class PgTxSql implements TxSql {
  readonly dialect = "postgres";

  constructor(private readonly c: PgClient) {}

  async run(sql: string, params: readonly unknown[]): Promise<number> {
    return (await this.c.query(sql, [...params])).rowCount ?? 0;
  }

  async all<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
    return (await this.c.query(sql, [...params])).rows as T[];
  }
}
