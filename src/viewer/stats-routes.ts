import type { Context, Hono } from "hono";
import { ValidationError } from "../core/errors.js";
import type { LoadedSession } from "./loaded-session.js";
import { diffOf, statsOf } from "./session-insights.js";

/**
 * The local viewer's stats and diff routes, computed on the server from the session it keeps read
 * (the page holds only the shape, never the bodies):
 *
 * - `GET /api/stats?key=K` the session's stats, as `sessiontree stats <session> --json`
 * - `GET /api/diff?key=K&a=A[&b=B]` where the branches to entries A and B part and what each has
 *   after (B defaults to the leaf), as `sessiontree diff A B --json`
 *
 * `current` is the app's own read of a session (kept while the file is unchanged).
 */
export function mountStatsRoutes(app: Hono, current: (key: string) => Promise<LoadedSession>): void {
  app.get("/api/stats", async (c) => c.json(statsOf(await current(required(c, "key")))));
  app.get("/api/diff", async (c) => {
    const loaded = await current(required(c, "key"));
    return c.json(diffOf(loaded, required(c, "a"), c.req.query("b") || undefined));
  });
}

function required(c: Context, name: string): string {
  const value = c.req.query(name);
  if (!value) throw new ValidationError("invalid_argument", `Query parameter "${name}" is required`);
  return value;
}
