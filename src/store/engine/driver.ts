import type { SessionEntry, SessionHeader } from "../../core/entry.js";
import type { SearchHit } from "../../core/search-hit.js";
import type { SearchTexts } from "../search/search-docs.js";
import type { SearchQuery } from "../search/search-query.js";
import type { SessionSummary, StoreCapabilities, TxSql } from "../store.js";
import type { ListQuery } from "./cursor.js";
import type { DriverStep } from "./step.js";

/**
 * What a backend provides: storage primitives, no rules. The engine (`EngineStore`) decides
 * everything a `SessionStore` promises (validation, visibility, idempotency, revisions, the leaf,
 * paging) and asks the driver only to find, read and write. A driver answers each question with a
 * value or a promise (see step.ts); a synchronous store (memory, SQLite, JSONL) answers with values,
 * which saves every call a few promise turns, and may throw (the engine turns it into a rejection).
 *
 * Values a driver returns (summaries, headers, entries) are the caller's to keep: copies, or
 * freshly parsed. Entries handed to it were checked by `validateBatch`; `entryJson(entry)` is the
 * text to store and `detachedEntry(entry)` a copy to keep as an object.
 *
 * @typeParam S the driver's handle on a found session (a row, an open file, an object).
 */
export interface StoreDriver<S> {
  /** "memory", "jsonl", "sqlite", "postgres": for messages and test titles. */
  readonly kind: string;
  readonly capabilities: StoreCapabilities;
  /** Opens connections, creates folders, runs migrations. Called again after success: a no-op. */
  init(): Promise<void>;
  /** Releases connections and files. Called twice: a no-op. */
  close(): Promise<void>;

  /**
   * Runs `work` as one atomic write to one session, which stays locked until it ends: SQLite's
   * `BEGIN IMMEDIATE`, PostgreSQL's `SELECT … FOR UPDATE` (in `tx.find`), the JSONL file's flock.
   * If `work` throws, nothing it wrote stays.
   */
  writeSession<T>(key: SessionKey, work: (tx: WriteTx<S>) => DriverStep<T>): DriverStep<T>;
  /** Runs `work`'s reads of one session as one snapshot. */
  readSession<T>(key: SessionKey, work: (tx: ReadTx<S>) => DriverStep<T>): DriverStep<T>;
  /** The session's summary in one read (no transaction), deleted or not; null when there is none. */
  findSummary(key: SessionKey): DriverStep<SessionSummary | null>;
  /**
   * Stores a new session with its first entries, atomically, unless the owner has that id already;
   * then, when stored, runs `within` in the same transaction (drivers with `capabilities.transactions`).
   */
  insertSession(session: NewSession, within?: (sql: TxSql) => DriverStep<void>): DriverStep<InsertOutcome>;
  /**
   * Up to `query.limit + 1` summaries of the owner in list order (newest `modifiedAt` first, then
   * id, both descending, after `query.after`), filtered by state and search (see `selectPage`).
   */
  listSessions(owner: string, query: ListQuery): DriverStep<SessionSummary[]>;
  /**
   * Purges the sessions of every owner soft-deleted before `cutoff` (ISO 8601), returning them;
   * `within` runs in the same transaction, with what was purged (drivers with `capabilities.transactions`).
   */
  purgeDeletedBefore(
    cutoff: string,
    within?: (purged: PurgedSession[], sql: TxSql) => DriverStep<void>,
  ): DriverStep<PurgedSession[]>;
  /**
   * SQL drivers: runs `work` in a write transaction of its own (blob claims, collections, archive
   * bookkeeping; see store/blob/). Drivers without it keep no payloads out of line.
   */
  runSql?<T>(work: (sql: TxSql) => DriverStep<T>): DriverStep<T>;
  /**
   * Full-text search in the driver's own index (SQL drivers, see store/search/): at most
   * `query.limit` hits of the owner's sessions, branch state computed against each session's leaf
   * now. Drivers without it are searched by a scan (store/search/scan-search.ts).
   */
  search?(query: SearchQuery): DriverStep<SearchHit[]>;
}

/** Which session a call is about: every session belongs to one owner. */
export interface SessionKey {
  owner: string;
  sessionId: string;
}

/** A session a driver found: its summary (deleted ones too: the engine decides) and the driver's handle. */
export interface FoundSession<S> {
  summary: SessionSummary;
  ref: S;
}

/** The reads of one session, inside `readSession` or `writeSession`. */
export interface ReadTx<S> {
  /** The session named by the transaction's key, or null. In `writeSession`, it is now locked. */
  find(): DriverStep<FoundSession<S> | null>;
  header(ref: S): DriverStep<SessionHeader>;
  /** Entries in storage order after the first `after`, at most `limit` of them (null: to the end). */
  entries(ref: S, after: number, limit: number | null): DriverStep<SessionEntry[]>;
  /** The path root → `leafId` (parents are always stored before children); [] when it is no entry. */
  branch(ref: S, leafId: string): DriverStep<SessionEntry[]>;
  /**
   * The walk of `branch`, stopped at `knownId`: from the leaf up to `knownId` (`reached`: the path
   * after it, root-first, [] when it is the leaf), or to the root when `knownId` is not on the path
   * (`reached` false: the whole path; [] when `leafId` is no entry). Costs O(entries after `knownId`).
   */
  branchSince(ref: S, leafId: string, knownId: string): DriverStep<BranchTail>;
  /** Whether `entryId` is a stored entry (a hidden leaf marker is none): one index lookup. */
  hasEntry(ref: S, entryId: string): DriverStep<boolean>;
}

/** `branchSince`'s answer: the path's part below `knownId`, or the whole path when it is not on it. */
export interface BranchTail {
  entries: SessionEntry[];
  /** The walk met `knownId`. */
  reached: boolean;
}

/** The reads and writes of one locked session, inside `writeSession`. */
export interface WriteTx<S> extends ReadTx<S> {
  /** The SQL drivers' connection in this transaction, for the caller's work `within` the write. */
  readonly sql?: TxSql;
  /** The stored entries among `ids` (ids it lacks are absent); `HIDDEN_ID` for an id that is not an entry. */
  entriesByIds(ref: S, ids: readonly string[]): DriverStep<ReadonlyMap<string, StoredId>>;
  /**
   * Stores new entries after the session's `storedCount` entries, in this order. A driver with a
   * search index indexes them in the same transaction (an entry indexed already is kept), taking
   * the text from `searchTexts` when given (the entries as the caller wrote them, before offload).
   */
  insertEntries(
    ref: S,
    entries: readonly SessionEntry[],
    storedCount: number,
    searchTexts?: SearchTexts,
  ): DriverStep<void>;
  /**
   * Stores the session's new summary: revision, leaf, counts, first message, name, modifiedAt,
   * deletedAt (search text: `searchText(summary)`). Called once per changing write, last.
   */
  updateSession(ref: S, next: SessionSummary): DriverStep<void>;
  /** Removes the session and its entries for good. */
  purgeSession(ref: S): DriverStep<void>;
}

/**
 * An id a session uses for something that is not an entry (the JSONL store's hidden leaf
 * markers): an entry may neither reuse it nor name it as its parent.
 */
export const HIDDEN_ID: unique symbol = Symbol("sessiontree.hidden-id");
export type StoredId = SessionEntry | typeof HIDDEN_ID;

/** A new session as the engine built it: the summary already counts `entries` and names the leaf. */
export interface NewSession {
  header: SessionHeader;
  entries: readonly SessionEntry[];
  summary: SessionSummary;
  /** Search texts of `entries` as the caller wrote them, when they differ from the stored form. */
  searchTexts?: SearchTexts;
}

/** `insertSession`'s answer: stored, or refused because the owner has a session with that id. */
export type InsertOutcome = { inserted: true } | { inserted: false; existingRevision: number };

export interface PurgedSession {
  owner: string;
  sessionId: string;
}
