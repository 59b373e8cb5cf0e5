/**
 * Key lookups of concurrent requests in one query: while a lookup is on its way to the database,
 * the keys asked meanwhile wait and go together in the next one. Every request is answered by a
 * query sent after it arrived, so a key revoked (or a user disabled) before a request came is
 * refused to it, as with one query per request; on a busy server the database gets a few queries
 * per round trip instead of one per request.
 */
export class KeyLookups<R> {
  private pending = new Map<
    string,
    Array<{ resolve: (row: R | undefined) => void; reject: (e: unknown) => void }>
  >();
  private inFlight = false;

  /**
   * `lookUp` reads the rows of all the ids given; `idOf` tells which id a row is. `gather`, when
   * given, is awaited before the ids are taken: on SQLite, which answers at once, so that the
   * requests read in one turn of the event loop share the query (`nextTurn`).
   */
  constructor(
    private readonly lookUp: (ids: string[]) => Promise<R[]>,
    private readonly idOf: (row: R) => string,
    private readonly gather?: () => Promise<void>,
  ) {}

  find(id: string): Promise<R | undefined> {
    return new Promise((resolve, reject) => {
      const waiting = this.pending.get(id) ?? [];
      waiting.push({ resolve, reject });
      this.pending.set(id, waiting);
      if (!this.inFlight) void this.send();
    });
  }

  private async send(): Promise<void> {
    this.inFlight = true;
    if (this.gather) await this.gather();
    const asked = this.pending;
    this.pending = new Map();
    try {
      const rows = await this.lookUp([...asked.keys()]);
      const byId = new Map(rows.map((row) => [this.idOf(row), row]));
      for (const [id, waiting] of asked) for (const w of waiting) w.resolve(byId.get(id));
    } catch (error) {
      for (const waiting of asked.values()) for (const w of waiting) w.reject(error);
    } finally {
      this.inFlight = false;
      if (this.pending.size > 0) void this.send();
    }
  }
}

/** Resolves in the next turn of the event loop, after the I/O of this one (setImmediate). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
