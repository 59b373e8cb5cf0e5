/** A query result as the store reads it. */
export interface PgResult {
  rows: Array<Record<string, unknown>>;
  rowCount?: number | null;
}

/** What the store needs of a checked-out `pg` client (typed structurally: no import of the driver). */
export interface PgClient {
  query(text: string, values?: unknown[]): Promise<PgResult>;
  release(destroy?: boolean | Error): void;
}

/** What the store needs of a `pg.Pool`. */
export interface PgPool {
  query(text: string, values?: unknown[]): Promise<PgResult>;
  connect(): Promise<PgClient>;
  end(): Promise<void>;
}

export type Isolation = "read committed" | "repeatable read read only";

const BEGIN: Record<Isolation, string> = {
  "read committed": "BEGIN",
  "repeatable read read only": "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
};

/**
 * Runs `fn` in one transaction on one pooled connection: COMMIT when it resolves, ROLLBACK when it
 * throws. A connection whose ROLLBACK fails is destroyed rather than returned to the pool.
 */
export async function inTransaction<T>(
  pool: PgPool,
  isolation: Isolation,
  fn: (client: PgClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(BEGIN[isolation]);
    const value = await fn(client);
    await client.query("COMMIT");
    return value;
  } catch (error) {
    try {
      await client.query("ROLLBACK");
    } catch (rollbackError) {
      broken = rollbackError as Error;
    }
    throw error;
  } finally {
    client.release(broken ?? false);
  }
}
