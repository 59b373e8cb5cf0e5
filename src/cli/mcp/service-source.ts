/**
 * Sessions from the sessiontree service (`--server URL`), through the typed client with the key in
 * SESSIONTREE_API_KEY: the service answers only for the key's user, so that is the scope.
 */

import type { SessionSummary, SessionTreeClient } from "../../client/index.js";
import type { SessionEntry } from "../../core/entry.js";
import { NotFoundError, SessionTreeError } from "../../core/errors.js";
import type { SearchHit } from "../../core/search-hit.js";
import { SessionTree } from "../../core/tree.js";
import type {
  ListFilter,
  LoadedSession,
  SearchScope,
  SessionListing,
  SessionSearch,
  SessionSource,
  SessionWriter,
} from "./source.js";

/** The service's largest pages. */
const SESSION_PAGE = 1000;
const ENTRY_PAGE = 5000;
/** The most hits `GET /v1/search` gives at once. */
export const SEARCH_PAGE = 200;

export class ServiceSource implements SessionSource {
  readonly where: string;
  readonly writer?: SessionWriter;

  constructor(
    private readonly client: SessionTreeClient,
    baseUrl: string,
    options: { allowWrites?: boolean } = {},
  ) {
    this.where = `service ${baseUrl}`;
    if (options.allowWrites) this.writer = new ServiceWriter(client);
  }

  /** The service lists newest first; a cwd filter reads on until enough sessions matched. */
  async list(filter: ListFilter): Promise<SessionListing[]> {
    const rows: SessionListing[] = [];
    for await (const summary of this.summaries()) {
      if (filter.cwd !== undefined && summary.cwd !== filter.cwd) continue;
      rows.push(listingOf(summary));
      if (filter.limit !== undefined && rows.length >= filter.limit) break;
    }
    return rows;
  }

  async load(ref: string): Promise<LoadedSession> {
    const summary = await this.find(ref);
    const tree = new SessionTree();
    let after: number | undefined;
    do {
      const page = await this.client.readEntries(summary.id, { after, limit: ENTRY_PAGE });
      // The service validated every entry when it was written.
      for (const entry of page.entries) tree.load(entry as unknown as SessionEntry);
      after = page.nextAfter ?? undefined;
    } while (after !== undefined);
    tree.restoreLeaf(summary.leafId);
    return { id: summary.id, name: summary.name ?? null, cwd: summary.cwd, tree };
  }

  /**
   * The service's index (`GET /v1/search`), the key's user's sessions only. A session prefix is
   * resolved first (the route takes whole ids). The route has no directory filter: with `cwd` the
   * service's best `SEARCH_PAGE` hits are asked for and those of other directories dropped.
   */
  async search(query: string, scope: SearchScope): Promise<SessionSearch> {
    const sessionId = scope.session === undefined ? undefined : (await this.find(scope.session)).id;
    const asked = scope.cwd === undefined ? Math.min(scope.limit, SEARCH_PAGE) : SEARCH_PAGE;
    const hits = await this.hits(query, { limit: asked, sessionId });
    if (scope.cwd === undefined) return { hits, skipped: [] };
    const kept = hits.filter((hit) => hit.cwd === scope.cwd).slice(0, scope.limit);
    const search: SessionSearch = { hits: kept, skipped: [] };
    if (hits.length === SEARCH_PAGE && kept.length < scope.limit)
      search.note = `the service searches every directory: these are the hits in ${scope.cwd} among its best ${SEARCH_PAGE}; a more precise query may find more`;
    return search;
  }

  private async hits(
    query: string,
    options: { limit: number; sessionId: string | undefined },
  ): Promise<SearchHit[]> {
    const { hits } = await this.client.search(query, options);
    // The wire schema lists exactly SearchHit's kinds; its static type widens them to string.
    return hits as SearchHit[];
  }

  /** A session by id, else by a unique prefix of one of the user's ids. */
  private async find(ref: string): Promise<SessionSummary> {
    // "." and ".." are dot segments to a URL: GET /v1/sessions/. is the list route. No session has
    // either id, and an answer must be the session asked for.
    if (ref !== "." && ref !== "..") {
      try {
        const summary = await this.client.getSession(ref);
        if (summary.id === ref) return summary;
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    const matches: SessionSummary[] = [];
    if (ref !== "") for await (const s of this.summaries()) if (s.id.startsWith(ref)) matches.push(s);
    if (matches.length === 1) return matches[0] as SessionSummary;
    if (matches.length > 1)
      throw new SessionTreeError(
        "invalid_argument",
        `"${ref}" names ${matches.length} sessions; give more of the id`,
        {
          details: { ref, matches: matches.slice(0, 10).map((m) => m.id) },
        },
      );
    throw new NotFoundError("session_not_found", `No session "${ref}" here`, { details: { ref } });
  }

  private async *summaries(): AsyncGenerator<SessionSummary> {
    let cursor: string | undefined;
    do {
      const page = await this.client.listSessions({ limit: SESSION_PAGE, cursor });
      yield* page.items;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }
}

/** Not found, or not a well-formed id: either way the user has no such session. */
function isMissing(error: unknown): boolean {
  const status = (error as { status?: unknown }).status;
  return status === 404 || status === 400;
}

function listingOf(summary: SessionSummary): SessionListing {
  return {
    id: summary.id,
    name: summary.name ?? null,
    cwd: summary.cwd,
    firstMessage: summary.firstMessage,
    messageCount: summary.messageCount,
    entryCount: summary.entryCount,
    created: summary.createdAt,
    modified: summary.modifiedAt,
  };
}

class ServiceWriter implements SessionWriter {
  constructor(private readonly client: SessionTreeClient) {}

  async setLabel(session: LoadedSession, entryId: string, label: string | undefined): Promise<void> {
    await this.client.setLabel(session.id, entryId, label);
  }

  async checkout(session: LoadedSession, entryId: string): Promise<void> {
    await this.client.setLeaf(session.id, entryId);
  }
}
