import type { SessionEntry, SessionHeader } from "../core/entry.js";

/**
 * The async storage contract the service and the agent layer use. Every backend (memory, jsonl,
 * sqlite, postgres) implements it and passes the same conformance suite (test/store/conformance).
 *
 * Tenancy: every call names an `owner` (the authenticated user id). A session of another owner
 * answers exactly like a missing one (`NotFoundError("session_not_found")`).
 *
 * Concurrency: every session has a `revision`, incremented by each write that changes it. A write
 * may name `expectedRevision`; when it is stale the write fails with `ConflictError` carrying the
 * current revision. Appends carry entry ids, so a retried append is idempotent.
 */
export interface SessionStore {
  /** Backend name, for messages and test titles ("memory", "jsonl", "sqlite", "postgres"). */
  readonly kind: string;
  readonly capabilities: StoreCapabilities;

  /** Opens connections and runs the versioned, idempotent schema migrations. Safe to call twice. */
  init(): Promise<void>;
  /** Releases connections and file handles. Safe to call twice. */
  close(): Promise<void>;

  createSession(owner: string, init?: CreateSessionInput): Promise<SessionSummary>;
  /** Header, every entry in storage order, leaf and revision. Soft-deleted sessions are not found unless asked. */
  loadSession(owner: string, sessionId: string, options?: ReadOptions): Promise<StoredSession>;
  getSummary(owner: string, sessionId: string, options?: ReadOptions): Promise<SessionSummary>;
  /** Newest first (by modifiedAt, then id), paged by an opaque cursor. */
  listSessions(owner: string, options?: ListOptions): Promise<Page<SessionSummary>>;

  /**
   * Appends a batch in one atomic write. Each entry's parentId must be null, an existing entry, or an
   * earlier entry of the batch. Entries already stored with identical content are skipped (idempotent
   * retry); an existing id with different content is a `ValidationError("duplicate_entry")`. The leaf
   * moves to the last entry of the batch unless `moveLeaf` is false. A batch that changes nothing
   * succeeds without a revision check and without a new revision.
   */
  appendEntries(
    owner: string,
    sessionId: string,
    entries: SessionEntry[],
    options?: AppendOptions,
  ): Promise<AppendResult>;
  /** Moves the leaf (null: before the root). Nothing is deleted. */
  setLeaf(
    owner: string,
    sessionId: string,
    leafId: string | null,
    options?: WriteOptions,
  ): Promise<WriteResult>;
  /** The path root → `leafId` (default: the session's leaf), without loading other branches. */
  readBranch(owner: string, sessionId: string, leafId?: string | null): Promise<SessionEntry[]>;
  /** Entries in storage order, paged: `after` is the last seq seen (0 to start). */
  readEntries(owner: string, sessionId: string, options?: EntryPageOptions): Promise<EntryPage>;

  /** Soft delete: hidden from lists and loads, restorable. */
  deleteSession(owner: string, sessionId: string, options?: WriteOptions): Promise<WriteResult>;
  restoreSession(owner: string, sessionId: string, options?: WriteOptions): Promise<WriteResult>;
  /** Hard delete, deleted or not. Gone for good. */
  purgeSession(owner: string, sessionId: string): Promise<void>;
  /** Retention: purges sessions soft-deleted before `cutoff`, of every owner. Returns what was purged. */
  purgeDeletedBefore(cutoff: Date): Promise<Array<{ owner: string; sessionId: string }>>;

  /** The session as a pi v3 JSONL file (header line, then entries in storage order). */
  exportJsonl(owner: string, sessionId: string): Promise<string>;
  /** A pi JSONL file (v1–v3) as a new session of `owner`; ids, parents, payloads and leaf are kept. */
  importJsonl(owner: string, jsonl: string, options?: ImportOptions): Promise<SessionSummary>;
}

/** Differences between backends that the conformance suite must know about. */
export interface StoreCapabilities {
  /** Several processes may write one session at once (revisions stay correct across processes). */
  multiProcess: boolean;
  /** Data survives `close()` and a new instance on the same location. */
  persistent: boolean;
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

export interface ReadOptions {
  /** Also find soft-deleted sessions. */
  includeDeleted?: boolean;
}

export interface WriteOptions {
  expectedRevision?: number;
}

export interface AppendOptions extends WriteOptions {
  /** Move the leaf to the last appended entry. Default true. */
  moveLeaf?: boolean;
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
  /** Default 50, at most 1000. */
  limit?: number;
  cursor?: string | null;
  /** Case-insensitive substring of the name or the first user message. */
  search?: string;
  /** "active" (default), "deleted" (the trash), or "all". */
  state?: "active" | "deleted" | "all";
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface EntryPageOptions {
  after?: number;
  /** Default 500, at most 5000. */
  limit?: number;
}

export interface EntryPage {
  entries: SessionEntry[];
  /** Pass as `after` for the next page; null at the end. */
  nextAfter: number | null;
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
}

export interface StoredSession {
  summary: SessionSummary;
  header: SessionHeader;
  /** Every entry in storage order (leaf markers excluded). */
  entries: SessionEntry[];
}
