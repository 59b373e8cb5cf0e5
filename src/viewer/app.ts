import type { Context } from "hono";
import { Hono } from "hono";
import { type ErrorCode, isSessionTreeError, ValidationError } from "../core/errors.js";
import { type ContextAtNode, contextAt, hasEntry } from "./context-at.js";
import { renderViewerPage } from "./page.js";
import type { ViewerSession, ViewerSource } from "./source.js";

export interface ViewerAppOptions {
  /**
   * Which Host header values to answer (for example `127.0.0.1:7766`). A local viewer serves
   * private history, so a page on another site must not reach it by DNS rebinding. Unset: any host.
   */
  isAllowedHost?: (host: string) => boolean;
  /**
   * Sessions kept parsed for context requests. Besides saving work, the cache keeps the ids the
   * page was given: a v1 file gets new entry ids each time it is read. @default 8
   */
  cacheSize?: number;
}

/**
 * The viewer as a Hono app: the page at `/`, and the JSON routes it uses.
 *
 * - `GET /api/origins` where the source looks
 * - `GET /api/sessions` every session, newest first
 * - `GET /api/session?key=K` one session: header, entries, leaf, labels, issues
 * - `GET /api/context?key=K&at=ID` the model's context with the leaf at ID
 *
 * @example
 * serve({ fetch: createViewerApp(createLocalSource({ root })).fetch, hostname: "127.0.0.1", port: 7766 });
 */
export function createViewerApp(source: ViewerSource, options: ViewerAppOptions = {}): Hono {
  const app = new Hono();
  const cache = new SessionCache(options.cacheSize ?? 8);

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

  app.get("/", (c) => c.html(renderViewerPage()));
  app.get("/favicon.ico", (c) => c.body(null, 204));
  app.get("/api/origins", async (c) => c.json({ origins: await source.describe() }));
  app.get("/api/sessions", async (c) => c.json({ sessions: await source.listSessions() }));
  app.get("/api/session", async (c) => {
    const session = await source.loadSession(requiredQuery(c, "key"));
    cache.put(session);
    return c.json(session);
  });
  app.get("/api/context", async (c) => {
    const key = requiredQuery(c, "key");
    const at = requiredQuery(c, "at");
    // Entries are append-only and never change parent, so a cached path stays right; reload only
    // when the entry is newer than the copy we hold.
    let session = cache.get(key);
    if (!session || !hasEntry(session, at)) {
      session = await source.loadSession(key);
      cache.put(session);
    }
    return c.json(withTail(contextAt(session, at), c.req.query("tail")));
  });
  return app;
}

/** `tail=N`: only the latest N messages (the panel shows those first), `omitted` says how many not. */
function withTail(context: ContextAtNode, tail: string | undefined): ContextAtNode & { omitted?: number } {
  if (tail === undefined) return context;
  const n = Number(tail);
  if (!Number.isInteger(n) || n < 0)
    throw new ValidationError("invalid_argument", `tail must be a count, got "${tail}"`);
  const omitted = Math.max(0, context.messages.length - n);
  return {
    ...context,
    messages: context.messages.slice(omitted),
    messageEntryIds: context.messageEntryIds.slice(omitted),
    omitted,
  };
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

/** The last few sessions loaded, newest last. */
class SessionCache {
  private readonly sessions = new Map<string, ViewerSession>();
  constructor(private readonly capacity: number) {}

  get(key: string): ViewerSession | undefined {
    return this.sessions.get(key);
  }

  put(session: ViewerSession): void {
    this.sessions.delete(session.key);
    this.sessions.set(session.key, session);
    while (this.sessions.size > this.capacity) {
      const oldest = this.sessions.keys().next().value;
      if (oldest === undefined) break;
      this.sessions.delete(oldest);
    }
  }
}
