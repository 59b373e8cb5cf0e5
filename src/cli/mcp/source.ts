/**
 * Where the MCP server reads sessions from: the session files under one root, or the service (as
 * the key's user). The tools are written once, over this interface; scoping is the source's job, so
 * a tool can never reach a session the source does not hand out.
 */
import type { SearchHit } from "../../core/search-hit.js";
import type { SessionTree } from "../../core/tree.js";

/** One row of `list_sessions`. */
export interface SessionListing {
  id: string;
  name: string | null;
  cwd: string;
  /** The first user message with text (pi's listing field). */
  firstMessage: string;
  /** Message entries in every branch. */
  messageCount: number;
  /** Entries in every branch. */
  entryCount: number;
  created: string;
  modified: string;
  /** The session file (local sessions only). */
  path?: string;
}

/** One session read whole: its tree (every branch, the leaf, labels) and what names it. */
export interface LoadedSession {
  id: string;
  name: string | null;
  cwd: string;
  path?: string;
  tree: SessionTree;
  /** Something a reader of the ids must know (an old file whose ids are made up on each read). */
  note?: string;
}

export interface ListFilter {
  /** Only sessions started in this directory. */
  cwd?: string;
  /** At most this many, newest first; none: all of them. */
  limit?: number;
}

export interface SearchScope {
  /** Only sessions started in this directory. */
  cwd?: string;
  /** Only this session: a reference `load` takes (id, unique id prefix, a local file's path). */
  session?: string;
  /** Hits returned, best first. */
  limit: number;
}

/** What a search found, and what it could not look in. */
export interface SessionSearch {
  /** Best first, then newest (`compareHits`). */
  hits: SearchHit[];
  /** Files in scope that are not sessions (another tool's, damaged headers): not searched. */
  skipped: string[];
  /** Something the reader of the hits must know (a filter applied to the first hits only). */
  note?: string;
}

/** What the write tools do (only with `--allow-writes`), on a session `load` gave and an entry of it. */
export interface SessionWriter {
  /** Sets (or with no text clears) an entry's label. */
  setLabel(session: LoadedSession, entryId: string, label: string | undefined): Promise<void>;
  /** Moves the leaf to an entry: the next message continues from there. Nothing is deleted. */
  checkout(session: LoadedSession, entryId: string): Promise<void>;
}

export interface SessionSource {
  /** Where the sessions come from, for people: "root /home/me/.sessiontree", "service https://…". */
  readonly where: string;
  /** Sessions, newest activity first. */
  list(filter: ListFilter): Promise<SessionListing[]>;
  /**
   * A session named by id or unique id prefix (a local source also takes the path of one of its
   * files). Anything else, inside the scope or not, is `session_not_found`.
   */
  load(ref: string): Promise<LoadedSession>;
  /**
   * Full-text search through the source's index (words, all of which must be found, "phrases",
   * prefix*; docs/search.md), within the same scope as `load`: a named session outside it is
   * `session_not_found`. A query with no word is `invalid_argument`.
   */
  search(query: string, scope: SearchScope): Promise<SessionSearch>;
  /** Present only when writes are allowed. */
  readonly writer?: SessionWriter;
}
