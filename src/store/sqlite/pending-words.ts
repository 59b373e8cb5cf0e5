import type { DeferredWork } from "./group-commit.js";
import type { Statements } from "./statements.js";

const INSERT_WORDS = "INSERT INTO search_fts (rowid, words) VALUES (?, ?)";

/**
 * FTS5 rows of a write transaction, held until its end and then written in ascending rowid order.
 * Docs count down (each write takes the numbers below the lowest, see `indexEntries`), so the writes
 * sharing one transaction (group-commit.ts) would hand FTS5 ever lower rowids, and FTS5 flushes its
 * pending terms to a new segment whenever a rowid is not above the last one: a segment per write,
 * then merges of them. Sorted, a transaction makes one segment. The rows are written inside the
 * transaction, before its COMMIT: an entry is findable as soon as its write is acknowledged.
 */
export class PendingWords implements DeferredWork {
  private docs: number[] = [];
  private words: string[] = [];
  /** How many of the rows are in FTS5 already (a purge flushes before it deletes, see `dropIndex`). */
  private written = 0;

  constructor(private readonly q: Statements) {}

  add(doc: number, words: string): void {
    this.docs.push(doc);
    this.words.push(words);
  }

  /**
   * Undoes what comes after this point when the write's savepoint is undone: its rows, and the
   * writing of rows that the savepoint's rollback took out of FTS5 again.
   */
  mark(): () => void {
    const size = this.docs.length;
    const written = this.written;
    return () => {
      this.docs.length = size;
      this.words.length = size;
      this.written = Math.min(this.written, written);
    };
  }

  /** Writes the rows not written yet, in ascending rowid order. */
  flush(): void {
    const { docs, words } = this;
    if (this.written === docs.length) return;
    const order: number[] = [];
    for (let i = this.written; i < docs.length; i++) order.push(i);
    order.sort((a, b) => (docs[a] as number) - (docs[b] as number));
    const insert = this.q.statement(INSERT_WORDS);
    for (const i of order) insert.run(docs[i], words[i]);
    this.written = docs.length;
  }

  /** Forgets every row: the transaction ended (committed after a flush, or rolled back). */
  discard(): void {
    this.docs = [];
    this.words = [];
    this.written = 0;
  }
}
