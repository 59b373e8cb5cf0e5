import type { TxSql } from "../store.js";
import type { Statements } from "./statements.js";

/**
 * The SQLite connection as `TxSql`, for work that runs inside a store write (see `InTransaction`):
 * the same connection, so the same transaction. `$1, $2…` become `?` (parameters come in their
 * order); statements are prepared once per text.
 */
export class SqliteTxSql implements TxSql {
  readonly dialect = "sqlite";
  private readonly texts = new Map<string, string>();

  constructor(private readonly q: Statements) {}

  run(sql: string, params: readonly unknown[]): number {
    const outcome = this.q.statement(this.text(sql)).run(...params) as { changes?: number };
    return outcome.changes ?? 0;
  }

  all<T>(sql: string, params: readonly unknown[]): T[] {
    return this.q.all<T>(this.text(sql), ...params);
  }

  private text(sql: string): string {
    let text = this.texts.get(sql);
    if (text === undefined) {
      text = sql.replace(/\$\d+/g, "?");
      this.texts.set(sql, text);
    }
    return text;
  }
}
