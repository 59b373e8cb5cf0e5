import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { createServer } from "../../src/server/index.js";

// A graceful stop closes the databases only after every handler has finished: a request whose
// client went away (or whose connection the grace period cut) still has its handler working on the
// store, and closing the store under it turned its work into "call init() first" halfway through.

const dir = mkdtempSync(join(tmpdir(), "st-shutdown-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("close() waits for a handler whose client has gone before it closes the store", async () => {
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let entered = () => {};
  const inHandler = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const outcome: { sessions?: number; error?: string } = {};
  const server = await createServer({
    data: dir,
    port: 0,
    rateLimit: false,
    shutdownGraceMs: 5_000,
    extend: (app, services) =>
      app.get("/slow", async (c) => {
        entered();
        await gate;
        try {
          const page = await services.store.listSessions("nobody");
          outcome.sessions = page.items.length;
        } catch (error) {
          outcome.error = (error as Error).message;
        }
        return c.json({ ok: true });
      }),
  });
  const { url } = await server.listen();
  const client = request(`${url}/slow`);
  client.on("error", () => {});
  client.end();
  await inHandler;
  client.destroy(); // the client goes away: its connection ends, its handler goes on
  await new Promise((resolve) => setTimeout(resolve, 50));
  let closed = false;
  const closing = server.close().then(() => {
    closed = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(closed, false, "close() waits for the handler");
  release();
  await closing;
  assert.deepEqual(outcome, { sessions: 0 }, "the handler met an open store");
});

test("a handler that outlives the grace period does not hold close() for ever", async () => {
  const server = await createServer({
    data: join(dir, "grace"),
    port: 0,
    rateLimit: false,
    shutdownGraceMs: 200,
    extend: (app) => app.get("/never", () => new Promise<Response>(() => {})),
  });
  const { url } = await server.listen();
  const client = request(`${url}/never`);
  client.on("error", () => {});
  client.end();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const started = Date.now();
  await server.close();
  assert.ok(Date.now() - started < 2_000, `close() took ${Date.now() - started} ms`);
});
