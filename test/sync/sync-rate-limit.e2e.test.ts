import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SessionTreeClient } from "../../src/client/client.js";
import { SessionTreeApiError } from "../../src/client/errors.js";
import type { RateLimitWait } from "../../src/sync/rate-limit-retry.js";
import { syncRoot } from "../../src/sync/sync.js";
import { startTestServer, type TestServer } from "../server/helpers.js";
import { filesById, makeSession, readFile, tempDir } from "./helpers.js";

const SYNC = join(import.meta.dirname, "sync-child.ts");

/** `sessiontree --root ROOT sync --server URL` in a child process, as a user runs it. */
async function cliSync(root: string, cache: string, url: string, key: string) {
  const env = {
    ...process.env,
    SESSIONTREE_API_KEY: key,
    SESSIONTREE_CACHE_DIR: cache,
    SESSIONTREE_CONFIG_DIR: cache,
  };
  const args = ["--import", "tsx", SYNC, "--root", root, "sync", "--server", url];
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stdout, stderr };
}

describe("sync waits out the service's rate limit (429 + Retry-After)", () => {
  let server: TestServer;
  let key: string;
  const dirs = tempDir("st-sync-rate-");

  before(async () => {
    // A burst of 2 requests, then one a second: every sync below runs into the limit.
    server = await startTestServer("sqlite", { rateLimit: { perSecond: 1, burst: 2 } });
    key = await server.key("dave");
  });
  after(async () => {
    await server.close();
    dirs.cleanup();
  });

  it("the CLI says it waits, retries, and finishes the sync", async () => {
    const rootA = join(dirs.path, "a");
    const rootB = join(dirs.path, "b");
    const made = makeSession(rootA, "/work/rate", 2);
    const pushed = await cliSync(rootA, join(dirs.path, "cache-a"), server.url, key);
    assert.equal(pushed.code, 0, pushed.stderr);
    assert.match(pushed.stderr, /rate limited by the service: waiting 1 s \(retry 1 of 5\)/);
    assert.match(pushed.stdout, /pushed 4 entries/);
    const pulled = await cliSync(rootB, join(dirs.path, "cache-b"), server.url, key);
    assert.equal(pulled.code, 0, pulled.stderr);
    const there = filesById(rootB).get(made.id);
    assert.ok(there, "root B has the session");
    assert.deepEqual(readFile(there).entries, readFile(made.path).entries);
  });
});

describe("sync gives up on a limit that keeps refusing", () => {
  let server: TestServer;
  let key: string;
  const dirs = tempDir("st-sync-refuse-");

  before(async () => {
    // One token every 100 s: once the burst is spent, no token comes back while these tests run,
    // so each retry is refused whatever the machine's speed.
    server = await startTestServer("sqlite", { rateLimit: { perSecond: 0.01, burst: 2 } });
    key = await server.key("erin");
  });
  after(async () => {
    await server.close();
    dirs.cleanup();
  });

  /** Spends the user's burst; the next request is refused. */
  async function exhaust(): Promise<void> {
    for (let i = 0; i < 3; i++) await server.call("GET", "/v1/sessions", { key });
  }

  it("the retries are bounded: a limit that keeps refusing still ends the run with the 429", async () => {
    const root = join(dirs.path, "c");
    makeSession(root, "/work/rate", 1);
    const waits: RateLimitWait[] = [];
    const remote = new SessionTreeClient({ baseUrl: server.url, token: key });
    await exhaust();
    await assert.rejects(
      syncRoot({
        root,
        remote,
        server: server.url,
        credentialId: "test",
        statePath: join(dirs.path, "state-c.json"),
        // No real wait: the bucket stays empty, so every retry is refused again.
        rateLimit: {
          maxRetries: 2,
          maxWaitSeconds: 1_000,
          onWait: (wait) => waits.push(wait),
          sleepMs: async () => {},
        },
      }),
      (error: unknown) => error instanceof SessionTreeApiError && error.status === 429,
    );
    assert.deepEqual(
      waits.map((w) => [w.retry, w.maxRetries]),
      [
        [1, 2],
        [2, 2],
      ],
    );
    assert.ok(
      waits.every((w) => w.seconds > 50),
      JSON.stringify(waits),
    );
  });

  it("a Retry-After longer than the longest wait ends the run at once", async () => {
    const root = join(dirs.path, "d");
    makeSession(root, "/work/rate", 1);
    const waits: RateLimitWait[] = [];
    const remote = new SessionTreeClient({ baseUrl: server.url, token: key });
    await exhaust();
    await assert.rejects(
      syncRoot({
        root,
        remote,
        server: server.url,
        credentialId: "test",
        statePath: join(dirs.path, "state-d.json"),
        rateLimit: { maxWaitSeconds: 50, onWait: (wait) => waits.push(wait) },
      }),
      (error: unknown) =>
        error instanceof SessionTreeApiError && error.status === 429 && (error.retryAfter ?? 0) > 50,
    );
    assert.deepEqual(waits, []);
  });
});
