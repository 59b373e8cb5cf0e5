import type { Context } from "hono";
import { Hono } from "hono";
import { type ErrorCode, isSessionTreeError, ValidationError } from "../core/errors.js";
import { count, messagePage } from "./context-at.js";
import { LoadedSession } from "./loaded-session.js";
import { renderViewerPage } from "./page.js";
import { pageHeaders } from "./page-headers.js";
import type { ViewerSource } from "./source.js";
import { mountStatsRoutes } from "./stats-routes.js";

export interface ViewerAppOptions {
  /**
   * Which Host header values to answer (for example `127.0.0.1:7766`). A local viewer serves
   * private history, so a page on another site must not reach it by DNS rebinding. Unset: any host.
   */
  isAllowedHost?: (host: string) => boolean;
  /**
   * Sessions kept read for the page's requests. Besides saving work, the cache keeps the ids the
   * page was given: a v1 file gets new entry ids each time it is read. @default 8
   */
  cacheSize?: number;
  /**
   * Entries kept read in all (the newest session is kept whatever its size): a session's entries
   * are its whole history in memory. @default 1,500,000
   */
  cacheEntries?: number;
}

const UTF8 = new TextEncoder();

/** Search hits one answer holds at most. */
const SEARCH_LIMIT = 100;

/** Messages of the leaf's context sent with a session's shape (the panel shows the latest 200). */
const OPENING_TAIL = 200;

/**
 * The viewer as a Hono app: the page at `/`, and the JSON routes it uses.
 *
 * - `GET /api/origins` where the source looks
 * - `GET /api/sessions` every session, newest first
 * - `GET /api/shape?key=K` one session's tree without bodies (ids, parents, looks, row texts, leaf)
 *   and, as `start`, the leaf's entry with the latest 200 messages of its context
 * - `GET /api/texts?key=K&from=A&to=B` row texts of nodes A..B (a large shape leaves them out)
 * - `GET /api/context?key=K&at=ID[&tail=N&before=M]` entry ID and a page of the context there
 * - `GET /api/session?key=K` one session whole: header, entries, leaf, labels, issues
 * - `GET /api/search?q=Q[&limit=N]` the full-text index's hits for Q (words, "phrases", prefix*;
 *   docs/search.md), best first: `{ items: ViewerSearchHit[] }`
 * - `GET /api/stats?key=K`, `GET /api/diff?key=K&a=A[&b=B]` stats and branch diff (stats-routes.ts)
 *
 * @example
 * serve({ fetch: createViewerApp(createLocalSource({ root })).fetch, hostname: "127.0.0.1", port: 7766 });
 */
export function createViewerApp(source: ViewerSource, options: ViewerAppOptions = {}): Hono {
  const app = new Hono();
  const cache = new SessionCache(options.cacheSize ?? 8, options.cacheEntries ?? 1_500_000);
  /** The session as it is now: the kept copy while the source says it is unchanged. */
  const current = async (key: string): Promise<LoadedSession> => {
    const version = source.version ? await source.version(key) : null;
    const kept = cache.get(key);
    if (kept && version !== null && kept.version === version) return kept;
    return cache.put(LoadedSession.of(await source.loadSession(key), version));
  };

  app.use("*", async (c, next) => {
    if (options.isAllowedHost && !options.isAllowedHost(c.req.header("host") ?? "")) {
      return c.json(
        { error: { code: "forbidden_host", message: "This viewer only answers on its own address" } },
        403,
      );
    }
    await next();
    c.header("Cache-Control", "no-store");
  });
  app.onError((err, c) => errorResponse(c, err));

  app.get("/", (c) => c.html(renderViewerPage(), 200, pageHeaders()));
  app.get("/favicon.ico", (c) => c.body(null, 204));
  app.get("/api/origins", async (c) => c.json({ origins: await source.describe() }));
  app.get("/api/sessions", async (c) => c.json({ sessions: await source.listSessions() }));
  app.get("/api/shape", async (c) => {
    const loaded = await current(requiredQuery(c, "key"));
    const tail = count("tail", c.req.query("tail")) ?? OPENING_TAIL;
    // As bytes: the Node adapter sends a megabyte string body tens of milliseconds later than the
    // same bytes (bench/viewer.ts), and this answer is what a first paint waits for.
    const bytes = UTF8.encode(loaded.openingJson(tail));
    return c.body(bytes, 200, { "Content-Type": "application/json; charset=utf-8" });
  });
  app.get("/api/texts", async (c) => {
    const key = requiredQuery(c, "key");
    const from = count("from", requiredQuery(c, "from")) as number;
    const to = count("to", requiredQuery(c, "to")) as number;
    // Node numbers are positions in the shape the page holds: answer from that same read.
    const loaded = cache.get(key) ?? (await current(key));
    return c.json(loaded.textsOf(from, to));
  });
  app.get("/api/search", async (c) => {
    const query = requiredQuery(c, "q");
    const limit = Math.min(count("limit", c.req.query("limit")) ?? SEARCH_LIMIT, SEARCH_LIMIT);
    if (!source.search) {
      const message = "This viewer's source has no search";
      return c.json({ error: { code: "search_unavailable", message } }, 404);
    }
    return c.json({ items: await source.search(query, { limit }) });
  });
  app.get("/api/session", async (c) => {
    return c.json(await source.loadSession(requiredQuery(c, "key")));
  });
  app.get("/api/context", async (c) => {
    const key = requiredQuery(c, "key");
    const at = requiredQuery(c, "at");
    const page = messagePage(c.req.query("tail"), c.req.query("before"));
    // Entries are append-only and never change parent, so a kept path stays right: the ids the
    // page was given keep answering, and a newer entry reads the session again.
    let loaded = cache.get(key);
    if (!loaded?.has(at)) loaded = await current(key);
    return c.json(loaded.select(at, page));
  });
  // /api/stats and /api/diff: sessiontree stats and diff over the session as read here.
  mountStatsRoutes(app, current);
  return app;
}

function requiredQuery(c: Context, name: string): string {
  const value = c.req.query(name);
  if (!value) throw new ValidationError("invalid_argument", `Query parameter "${name}" is required`);
  return value;
}

/** A file the viewer was asked to show that is no session to show: the request's fault, not ours. */
const CLIENT_ERRORS = new Set<ErrorCode>([
  "invalid_argument",
  "empty_session_file",
  "foreign_session_file",
  "not_a_session",
  "invalid_header",
]);

function errorResponse(c: Context, err: unknown): Response {
  if (isSessionTreeError(err)) {
    const status = err.code.endsWith("_not_found") ? 404 : CLIENT_ERRORS.has(err.code) ? 400 : 500;
    return c.json({ error: { code: err.code, message: err.message } }, status);
  }
  const message = err instanceof Error ? err.message : String(err);
  return c.json({ error: { code: "internal", message } }, 500);
}

/** The last few sessions loaded, newest last, within a budget of entries. */
class SessionCache {
  private readonly sessions = new Map<string, LoadedSession>();
  constructor(
    private readonly capacity: number,
    private readonly entryBudget: number,
  ) {}

  get(key: string): LoadedSession | undefined {
    return this.sessions.get(key);
  }

  put(session: LoadedSession): LoadedSession {
    this.sessions.delete(session.key);
    this.sessions.set(session.key, session);
    let entries = 0;
    for (const kept of this.sessions.values()) entries += kept.size;
    while (this.sessions.size > 1 && (this.sessions.size > this.capacity || entries > this.entryBudget)) {
      const oldest = this.sessions.values().next().value as LoadedSession;
      entries -= oldest.size;
      this.sessions.delete(oldest.key);
    }
    return session;
  }
}
