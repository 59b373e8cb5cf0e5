import type { SessionEntry, SessionHeader } from "../core/entry.js";
import type { SearchHit } from "../core/search-hit.js";
import type { DriverStep } from "./engine/step.js";

/**
 * The async storage contract the service and the agent layer use. Every backend (memory, jsonl,
 * sqlite, postgres) implements it and passes the same conformance suite (test/store/conformance).
 *
 * Tenancy: every call names an `owner` (the authenticated user id). A session of another owner
 * answers exactly like a missing one (`NotFoundError("session_not_found")`).
 *
 * Concurrency: every session has a `revision` (1 when created), incremented by exactly one by each
 * write that changes it. A write may name `expectedRevision`; when it is stale the write fails with
 * `ConflictError` carrying the current revision (`currentRevision`). A write that would change
 * nothing (an append of stored entries, a leaf set to where it is, deleting a deleted session)
 * succeeds without a revision check and without a new revision. Appends carry entry ids, so a
 * retried append is idempotent. Leaf markers are never entries here: the leaf is the session's own.
 */
export interface SessionStore {
  /** Backend name, for messages and test titles ("memory", "jsonl", "sqlite", "postgres"). */
  readonly kind: string;
  readonly capabilities: StoreCapabilities;

  /** Opens connections and runs the versioned, idempotent schema migrations. Safe to call twice. */
  init(): Promise<void>;
  /** Releases connections and file handles. Safe to call twice. */
  close(): Promise<void>;

  /** A new, empty session (revision 1, leaf null). An id the owner already has is a `ConflictError`. */
  createSession(
    owner: string,
    init?: CreateSessionInput,
    options?: InTransaction<SessionSummary>,
  ): Promise<SessionSummary>;
  /** Header, every entry in storage order, leaf and revision. Soft-deleted sessions are not found unless asked. */
  loadSession(owner: string, sessionId: string, options?: ReadOptions): Promise<StoredSession>;
  getSummary(owner: string, sessionId: string, options?: ReadOptions): Promise<SessionSummary>;
  /** Newest first (by modifiedAt, then id), paged by an opaque cursor. */
  listSessions(owner: string, options?: ListOptions): Promise<Page<SessionSummary>>;

  /**
   * Appends a batch in one atomic write. Each entry's parentId must be null, an existing entry, or an
   * earlier entry of the batch (else `ValidationError("invalid_entry")`); ids must be safe ids
   * (core's `isSafeId`), entries must pass core's `checkEntry`, leaf markers are refused (unless
   * the batch is `history`). Entries already stored with identical content (key order aside) are
   * skipped (idempotent retry); an existing id with different content is a
   * `ValidationError("duplicate_entry")`; either error writes nothing. The leaf moves to the last newly written entry unless `moveLeaf` is false; a batch that
   * writes nothing new leaves the leaf alone, so a late retry never moves a leaf moved since.
   */
  appendEntries(
    owner: string,
    sessionId: string,
    entries: SessionEntry[],
    options?: AppendOptions,
  ): Promise<AppendResult>;
  /** Moves the leaf (null: before the root). Nothing is deleted. An unknown entry is `entry_not_found`. */
  setLeaf(
    owner: string,
    sessionId: string,
    leafId: string | null,
    options?: WriteOptions,
  ): Promise<WriteResult>;
  /**
   * The path root → `leafId` (default: the session's leaf; null: empty), without loading other
   * branches. An unknown entry is `entry_not_found`.
   */
  readBranch(
    owner: string,
    sessionId: string,
    leafId?: string | null,
    options?: PayloadReadOptions,
  ): Promise<SessionEntry[]>;
  /**
   * What a reader that holds the path root → `knownId` lacks of the path root → `leafId` (default:
   * the session's leaf; null: empty), so a turn reads O(new entries), not the whole path again.
   * When `knownId` is on that path (the leaf itself included), `entries` is the path strictly after
   * it (possibly empty) and `complete` is false; otherwise (another branch, an unknown id, null) it
   * is the whole path and `complete` is true. Errors and payloads as `readBranch`.
   */
  readBranchSince(
    owner: string,
    sessionId: string,
    knownId: string | null,
    leafId?: string | null,
    options?: PayloadReadOptions,
  ): Promise<BranchSince>;
  /** Entries in storage order, paged: `after` is the last seq seen (0 to start). */
  readEntries(owner: string, sessionId: string, options?: EntryPageOptions): Promise<EntryPage>;
  /**
   * The whole session to read a page at a time, for callers that must give their thread back
   * between pages (the service): summary and header now (a missing session fails here), then the
   * entries in storage order, each page read when asked for. Pages go by storage position up to the
   * summary's `entryCount`, and sessions are append-only, so the pages are the session at the
   * summary's revision whatever is appended meanwhile.
   */
  openPages(owner: string, sessionId: string, options?: PagedReadOptions): Promise<PagedSession>;
  /** Whether the session has an entry with this id: one lookup, whatever the session's size. */
  hasEntry(owner: string, sessionId: string, entryId: string): Promise<boolean>;

  /**
   * Soft delete: hidden from lists, loads and writes (they answer `session_not_found`), restorable.
   * Deleting a deleted session (or restoring an active one) changes nothing.
   */
  deleteSession(owner: string, sessionId: string, options?: WriteOptions): Promise<WriteResult>;
  restoreSession(owner: string, sessionId: string, options?: WriteOptions): Promise<WriteResult>;
  /** Hard delete, deleted or not. Gone for good. */
  purgeSession(owner: string, sessionId: string, options?: InTransaction<null>): Promise<void>;
  /**
   * Retention: purges sessions soft-deleted before `cutoff`, of every owner, in one write. Returns
   * what was purged.
   */
  purgeDeletedBefore(
    cutoff: Date,
    options?: InTransaction<PurgedSessions>,
  ): Promise<Array<{ owner: string; sessionId: string }>>;

  /**
   * The session as a pi v3 JSONL file (header line, then entries in storage order), plus a leaf
   * marker line when the leaf is not the last entry, so pi and sessiontree reopen it at the leaf.
   */
  exportJsonl(owner: string, sessionId: string): Promise<string>;
  /**
   * `exportJsonl` in pieces (the header line, then a page of entry lines at a time, then the
   * marker), read page by page as the pieces are asked for; the session is found before it resolves.
   */
  exportJsonlPages(owner: string, sessionId: string, options?: { pageSize?: number }): Promise<JsonlPieces>;
  /**
   * A pi JSONL file (v1–v3) as a new session of `owner`; ids, parents, payloads, labels and leaf are
   * kept. All or nothing: a damaged line, a conflicting duplicate or a parent that is not earlier in
   * the file refuses the import (`invalid_entry` / `duplicate_entry`; no header: `not_a_session`).
   */
  importJsonl(
    owner: string,
    jsonl: string,
    options?: ImportOptions & InTransaction<SessionSummary>,
  ): Promise<SessionSummary>;

  /**
   * Full-text search over the owner's sessions (never another owner's): the searchable text of each
   * entry (core's `searchableText`) holding every term of `query` (words and "quoted phrases",
   * case-insensitive substrings), best first (relevance, then recency). SQLite and PostgreSQL keep
   * an index, updated in every write's transaction; memory and jsonl scan. Soft-deleted sessions
   * only with `includeDeleted`. An empty query, or one without a term of 3 characters or more, is
   * `invalid_argument`; a `sessionId` the owner cannot see is `session_not_found`.
   */
  search(owner: string, query: string, options?: SearchOptions): Promise<SearchHit[]>;
}

export interface SearchOptions {
  /** Default 20, at most 200 (larger values are capped; below 1 is `invalid_argument`). */
  limit?: number;
  /** Search this session only. */
  sessionId?: string;
  /** Also search soft-deleted sessions. */
  includeDeleted?: boolean;
}

export type PurgedSessions = Array<{ owner: string; sessionId: string }>;

/**
 * SQL run on the connection of a store write, inside its transaction: what the SQL stores offer
 * to work that must commit with the write or not at all (the service's idempotency and audit rows,
 * which live in the same database). Placeholders are `$1, $2…`, numbered in the order of the
 * parameters and each used once. On SQLite every call answers at once (a value, not a promise).
 */
export interface TxSql {
  readonly dialect: "sqlite" | "postgres";
  /** Runs a statement; answers how many rows it changed. */
  run(sql: string, params: readonly unknown[]): DriverStep<number>;
  all<T>(sql: string, params: readonly unknown[]): DriverStep<T[]>;
}

/** What a write did, as the work inside its transaction sees it. */
export interface WriteOutcome<R> {
  /** What the call will answer. */
  result: R;
  /** False when the write changed nothing (an append of stored entries, a repeated delete). */
  changed: boolean;
  /** The session as this write leaves it (null when it was purged, or for a retention sweep). */
  summary: SessionSummary | null;
}

/**
 * Work that commits with a write or not at all. On a store with `capabilities.transactions`,
 * `within` runs inside the write's transaction, after its changes, with its connection (`sql`);
 * if it throws, the write is undone and the call fails with that error. On SQLite it must answer
 * synchronously (a value, not a promise), as the store's own work. On other stores (memory, jsonl)
 * it runs once the write's changes are made, with `sql` null; the call still fails if it throws.
 */
export interface InTransaction<R> {
  within?: (outcome: WriteOutcome<R>, sql: TxSql | null) => DriverStep<void>;
}

/** Differences between backends that the conformance suite must know about. */
export interface StoreCapabilities {
  /** Data survives `close()` and a new instance on the same location. */
  persistent: boolean;
  /**
   * Writes are transactions (SQLite, PostgreSQL): work `within` a write commits with it, and when
   * it throws the write is undone. Without (memory, jsonl) that work runs once the write's changes
   * are made, and whether its failure undoes them is the store's own affair.
   */
  transactions?: boolean;
}

export interface CreateSessionInput {
  /** Defaults to a new UUID v7. Must be a safe id. */
  id?: string;
  cwd?: string;
  name?: string;
  parentSession?: string;
  /** Header timestamp; defaults to now. */
  timestamp?: string;
}

export interface ReadOptions extends PayloadReadOptions {
  /** Also find soft-deleted sessions. */
  includeDeleted?: boolean;
}

export interface PayloadReadOptions {
  /**
   * Give payloads kept in the blob store back as references (`{ type: "image", mimeType, blob:
   * { sha256, size, encoding } }`, `{ type: "text", blob: { sha256, size } }`) instead of inline:
   * a viewer loads an image only when it is shown. Default false: entries come back whole.
   */
  references?: boolean;
}

export interface WriteOptions extends InTransaction<WriteResult> {
  expectedRevision?: number;
}

export interface AppendOptions extends Omit<WriteOptions, "within">, InTransaction<AppendResult> {
  /** Move the leaf to the last appended entry. Default true. */
  moveLeaf?: boolean;
  /**
   * Hang the batch under the session's leaf as it stands inside this write (decided under the
   * store's lock or in its transaction, so concurrent appends without `expectedRevision` never fail
   * with a conflict and never fork the history): the first entry's `parentId` is replaced by the
   * leaf. A retry whose first entry is already stored keeps that entry's stored parent, so it is
   * still skipped as a retry. Default false.
   */
  underLeaf?: boolean;
  /**
   * The entries are a copy's existing history (`sessiontree sync` pushes a file's entries), taken as
   * a file read takes them: a leaf marker another writer (pi) appended under is an ordinary entry
   * of that copy (callers check that a marker has a child; the store only stops refusing it), and an
   * entry with no string timestamp, or whose known type's own fields are missing or wrong, is kept
   * as *malformed* (core's `checkEntryRead`: it holds its place). Default false: a client's new
   * entries pass `checkEntry`, and a marker is refused (the leaf is a column; `setLeaf` moves it).
   */
  history?: boolean;
}

export interface WriteResult {
  revision: number;
  leafId: string | null;
}

export interface AppendResult extends WriteResult {
  /** Ids written by this call. */
  appended: string[];
  /** Ids that were already stored with identical content (a retry). */
  skipped: string[];
}

export interface ListOptions {
  /** Default 50, at most 1000 (larger values are capped; below 1 is `invalid_argument`). */
  limit?: number;
  /** `nextCursor` of the previous page; a cursor that does not decode is `invalid_argument`. */
  cursor?: string | null;
  /** Case-insensitive substring of the name or the first user message (its first 1000 characters). */
  search?: string;
  /** "active" (default), "deleted" (the trash), or "all". */
  state?: "active" | "deleted" | "all";
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** `readBranchSince`'s answer, read as one snapshot of the session. */
export interface BranchSince {
  /** The path after `knownId` (`complete` false), or the whole path (`complete` true). */
  entries: SessionEntry[];
  complete: boolean;
  /** Where the path ends: the `leafId` asked for, or the session's leaf when none was. */
  leafId: string | null;
  /** The session's revision at the read. */
  revision: number;
}

export interface EntryPageOptions extends PayloadReadOptions {
  after?: number;
  /** Default 500, at most 5000. */
  limit?: number;
}

export interface EntryPage {
  entries: SessionEntry[];
  /** Pass as `after` for the next page; null at the end. */
  nextAfter: number | null;
}

export interface PagedReadOptions extends PayloadReadOptions {
  /** Entries per page: default 200, at most 5000. */
  pageSize?: number;
}

export interface PagedSession {
  summary: SessionSummary;
  header: SessionHeader;
  /** Every entry in storage order (leaf markers excluded), a page at a time; iterate once. */
  pages: AsyncIterable<SessionEntry[]>;
}

export interface JsonlPieces {
  /** The session the file is, as of its first read. */
  summary: SessionSummary;
  /** The file's text in pieces, each a run of whole lines; iterate once. */
  pieces: AsyncIterable<string>;
}

export interface ImportOptions {
  /** Keep the file's session id (default) or give the session a new one. */
  newId?: boolean;
}

export interface SessionSummary {
  id: string;
  owner: string;
  cwd: string;
  name: string | undefined;
  parentSession: string | undefined;
  createdAt: string;
  modifiedAt: string;
  revision: number;
  leafId: string | null;
  entryCount: number;
  messageCount: number;
  /** Text of the first user message, "" when there is none. */
  firstMessage: string;
  deletedAt: string | null;
  /**
   * When the session was archived to object storage (SQL stores with a blob store): present only
   * while it is. Any read or write of the session brings it back first, transparently.
   */
  archivedAt?: string;
}

export interface StoredSession {
  summary: SessionSummary;
  header: SessionHeader;
  /** Every entry in storage order (leaf markers excluded). */
  entries: SessionEntry[];
}
