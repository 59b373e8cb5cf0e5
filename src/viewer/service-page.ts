import type { Hono } from "hono";
import { renderServicePage } from "./page.js";
import { pageHeaders } from "./page-headers.js";

/**
 * Mounts the viewer on the session service's app (`createServer({ extend })`, what `sessiontree
 * serve` does unless `--no-viewer`): the page at `/`. The page holds no data and needs no
 * credential; it signs in and asks the `/v1` API for everything, as that user, so it sees what
 * that user's API sees and nothing else.
 *
 * @example
 * const server = await createServer({ data, extend: (app) => mountServiceViewer(app) });
 */
export function mountServiceViewer(app: Hono): void {
  let page: string | undefined;
  app.get("/", (c) => {
    page ??= renderServicePage();
    return c.html(page, 200, pageHeaders());
  });
  app.get("/favicon.ico", (c) => c.body(null, 204));
}
