import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
// @ts-expect-error: a plain .mjs script without types
import { startPostgres } from "../../scripts/pg.mjs";
import { createServer, type SessionTreeServer } from "../../src/server/index.js";
import { call } from "./helpers.js";

/**
 * A PostgreSQL of this test's own, stopped halfway: liveness stays 200 (the process is fine),
 * readiness turns 503 (issue 16.11: /healthz said 200 while PostgreSQL was down).
 */
describe("readiness follows the database (PostgreSQL stopped)", () => {
  let pg: { url: string; stop(): void };
  let server: SessionTreeServer;
  let url: string;
  const logLines: string[] = [];

  before(async () => {
    pg = await startPostgres();
    server = await createServer({
      port: 0,
      database: pg.url,
      rateLimit: false,
      poolSize: 3,
      accessLog: (line) => logLines.push(line),
    });
    url = (await server.listen()).url;
  });
  after(async () => {
    await server.close().catch(() => {});
    pg.stop();
  });

  it("reports the pool's use in /metrics", async () => {
    assert.equal((await call(url, "GET", "/readyz")).status, 200);
    const metrics = await call(url, "GET", "/metrics");
    assert.match(metrics.text, /sessiontree_db_pool_connections\{pool="main",state="total"\} [1-9]/);
    assert.match(metrics.text, /sessiontree_db_pool_connections\{pool="main",state="waiting"\} 0/);
  });

  it("/readyz answers 503 not_ready while /healthz stays 200", async () => {
    pg.stop();
    const ready = await call(url, "GET", "/readyz");
    assert.equal(ready.status, 503);
    assert.equal(ready.json.code, "not_ready");
    assert.equal(ready.headers.get("retry-after"), "1");
    assert.equal((await call(url, "GET", "/healthz")).status, 200);
  });

  it("tells an anonymous caller nothing of the database; the log line keeps the driver's error", async () => {
    // pg.stop() ran above. A public route must not show where the database is or who logs in to it.
    const port = new URL(pg.url).port;
    const ready = await call(url, "GET", "/readyz");
    assert.equal(ready.status, 503);
    assert.equal(ready.json.message, "The database does not answer");
    assert.doesNotMatch(
      ready.text,
      new RegExp(`${port}|ECONNREFUSED|terminat|127\\.0\\.0\\.1|postgres`, "i"),
    );
    const logged = logLines
      .map((line) => JSON.parse(line))
      .filter((line) => line.path === "/readyz" && line.status === 503);
    assert.ok(logged.length >= 1);
    assert.equal(logged.at(-1).error.message, "The database does not answer");
    assert.ok(logged.at(-1).error.cause?.message, "the driver's error is on the log line");
  });
});
