import type { SessionEntry, SessionHeader } from "../core/entry.js";
import type { SessionIssue } from "../core/issues.js";
import type { SearchHit } from "../core/search-hit.js";

/**
 * Where the viewer gets sessions from. Kept small on purpose: local files implement it
 * (`local-source.ts`), and the HTTP service can implement it over a database store for the
 * signed-in user. The viewer builds context itself (core's `projectContext`), so a source only reads.
 */
export interface ViewerSource {
  /** Where this source looks, for the page's header and its empty state. */
  describe(): Promise<ViewerOrigin[]>;
  /** Every session, newest first. */
  listSessions(): Promise<ViewerSessionSummary[]>;
  /**
   * One session by the `key` its summary gave. An unknown or foreign key is
   * `NotFoundError("session_not_found")`, never a read of something else.
   */
  loadSession(key: string): Promise<ViewerSession>;
  /**
   * What the session is now, as a short string that changes when it does (a file's size and
   * mtime): the viewer keeps a session it read while this stays the same, so opening it again
   * costs no read. Without it, every open reads the session again.
   */
  version?(key: string): Promise<string>;
  /**
   * Full-text search over this source's sessions (`GET /api/search`), best first, at most `limit`
   * hits. Without it the viewer's search box says search is not available.
   */
  search?(query: string, options: { limit: number }): Promise<ViewerSearchHit[]>;
}

/** A search hit with the `key` that opens its session in this viewer (`loadSession`, the hash). */
export type ViewerSearchHit = SearchHit & { key: string };

/** One place a source reads from: a sessiontree root, a pi agent directory, a database. */
export interface ViewerOrigin {
  /** Short tag shown next to each session ("sessiontree", "pi"). */
  source: string;
  /** What to show the user: a folder, a database name. */
  location: string;
  /** Whether the place exists at all (the empty state says which did not). */
  exists: boolean;
}

export interface ViewerSessionSummary {
  /** Opaque, URL-safe handle for `loadSession`; stable while the session exists. */
  key: string;
  /** The origin's `source` tag. */
  source: string;
  id: string;
  cwd: string;
  name: string | undefined;
  /** Text of the first user message, "" when there is none. */
  firstMessage: string;
  messageCount: number;
  createdAt: string;
  modifiedAt: string;
  /** Where it lives (a file path), for display only. */
  location: string;
}

export interface ViewerSession {
  key: string;
  source: string;
  header: SessionHeader;
  /** Every entry in storage order. */
  entries: SessionEntry[];
  leafId: string | null;
  /** Resolved labels, target id → label. */
  labels: Record<string, string>;
  name: string | undefined;
  /** Problems met while reading, shown above the tree. */
  issues: SessionIssue[];
}
