// The HTTP ceiling of the service bench (bench/server-load.ts): the same requests as the append
// run, answered by a bare Hono app on @hono/node-server (the stack `sessiontree serve` uses) that
// checks the bearer header, parses the body and answers 201 with an append's reply shape, and
// stores nothing. What it sustains is the most any append route can on this machine and Node.
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const app = new Hono();
let next = 0;
app.post("/v1/sessions/:id/entries", async (c) => {
  if (!c.req.header("authorization")?.startsWith("Bearer ")) return c.json({ error: "unauthorized" }, 401);
  const body = (await c.req.json()) as { entries: unknown[] };
  const entries = body.entries.map(() => {
    const id = (next++).toString(16).padStart(8, "0");
    return { id, parentId: null, timestamp: new Date().toISOString() };
  });
  return c.json({ entries, leafId: entries.at(-1)?.id ?? null, revision: next }, 201);
});

serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => {
  console.log(`bare HTTP listening on http://127.0.0.1:${info.port}`);
});
