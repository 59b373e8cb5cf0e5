import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { createApiKey, createServer } from "../../src/server/index.js";
import { BACKENDS, freshPgDatabase, startTestServer, type TestServer, userMessage } from "./helpers.js";

/**
 * Defects found by an adversarial pass over the HTTP service (real server, SQLite and PostgreSQL).
 * Each test states what the docs promise (docs/server.md); each failed before its fix.
 */

/** A GET that gives up after `ms`: null when no answer came in time. */
async function getWithin(url: string, key: string, ms: number): Promise<number | null> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  try {
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${key}` },
      signal: controller.signal,
    });
    await response.text();
    return response.status;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** Sends `text` on a raw connection and cuts it off after `ms`, without waiting for an answer. */
function sendAndCut(url: string, text: string, ms: number): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(text);
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, ms);
    });
    socket.on("error", () => resolve());
  });
}

for (const backend of BACKENDS) {
  describe(`adversarial requests (${backend})`, () => {
    let t: TestServer;
    let alice: string;
    let bob: string;
    const newSession = async (key: string, body: unknown = { cwd: "/w" }) =>
      (await t.call("POST", "/v1/sessions", { key, body })).json;

    before(async () => {
      t = await startTestServer(backend, { shutdownGraceMs: 500 });
      alice = await t.key("alice");
      bob = await t.key("bob");
    });
    after(() => t.close());

    // docs/server.md: `/export` "holds its whole-read slot until its last byte is sent or the
    // client goes away"; whole-session reads are capped per user (2) and per instance (2). Hono
    // answers HEAD by running the GET handler and dropping its body stream without cancelling it,
    // so the slot is never given back.
    it("HEAD …/export gives its whole-read slot back: other users' whole-session reads still answer", async () => {
      const mine = await newSession(alice);
      await t.call("POST", `/v1/sessions/${mine.id}/entries`, {
        key: alice,
        body: { entries: [userMessage("one"), userMessage("two")] },
      });
      const theirs = await newSession(bob);
      await t.call("POST", `/v1/sessions/${theirs.id}/entries`, {
        key: bob,
        body: { entries: [userMessage("bob's")] },
      });
      for (let i = 0; i < 2; i++) {
        const head = await fetch(`${t.url}/v1/sessions/${mine.id}/export`, {
          method: "HEAD",
          headers: { authorization: `Bearer ${alice}` },
        });
        assert.equal(head.status, 200);
      }
      assert.equal(
        await getWithin(`${t.url}/v1/sessions/${theirs.id}/tree`, bob, 3000),
        200,
        "bob's GET /tree must answer (it waited for ever behind two leaked slots)",
      );
      assert.equal(
        await getWithin(`${t.url}/v1/sessions/${mine.id}/labels`, alice, 3000),
        200,
        "alice's own whole-session reads must not stay 429 or hang",
      );
    });

    // docs/server.md: a repeated delete is a no-op ("a repeated delete … adds none"), DELETE
    // reaches the trash (findsDeleted), and a stale If-Match is a 412 "even when the write would
    // change nothing". routes/sessions.ts checks If-Match with includeDeleted only for restore.
    it("DELETE with If-Match on a session in the trash: 200 at its revision, 412 when stale", async () => {
      const session = await newSession(alice);
      const first = await t.call("DELETE", `/v1/sessions/${session.id}`, {
        key: alice,
        headers: { "if-match": `"${session.revision}"` },
      });
      assert.equal(first.status, 200);
      const current = first.json.revision as number;
      const unconditional = await t.call("DELETE", `/v1/sessions/${session.id}`, { key: alice });
      assert.equal(unconditional.status, 200, "a repeated delete without If-Match is a no-op");
      const repeated = await t.call("DELETE", `/v1/sessions/${session.id}`, {
        key: alice,
        headers: { "if-match": `"${current}"` },
      });
      assert.equal(repeated.status, 200, `at the current revision: ${repeated.text}`);
      const stale = await t.call("DELETE", `/v1/sessions/${session.id}`, {
        key: alice,
        headers: { "if-match": `"${session.revision}"` },
      });
      assert.equal(stale.status, 412, `stale: ${stale.text}`);
      assert.equal(stale.json.currentRevision, current);
    });

    // A key's name is listed text like a session's: NUL is refused alike on every backend (it was
    // 201 on SQLite and 400 on PostgreSQL, whose text type cannot hold it).
    it("a key name holding NUL is refused as any listed text is", async () => {
      const created = await t.call("POST", "/v1/keys", { key: alice, body: { name: "laptop\u0000" } });
      assert.equal(created.status, 400, created.text);
      assert.equal(created.json.code, "invalid_request");
    });

    // summary.ts keeps listing text "as every backend must list alike", but cuts the first message
    // at 1,000 UTF-16 units (splitting a surrogate pair) and stores lone surrogates from names and
    // cwds: SQLite then reads back three U+FFFD, PostgreSQL one, and the write's own answer another.
    it("listing text stays what was written: no half emoji, no lone surrogates turned into U+FFFD", async () => {
      const text = `${"a".repeat(999)}😀 after the cut`;
      const session = await newSession(alice);
      await t.call("POST", `/v1/sessions/${session.id}/entries`, {
        key: alice,
        body: { entries: [userMessage(text)] },
      });
      const read = (await t.call("GET", `/v1/sessions/${session.id}`, { key: alice })).json;
      const first = read.firstMessage as string;
      assert.ok(
        !/[\ud800-\udfff]|\ufffd/u.test(first.slice(-4)),
        `firstMessage ends ${JSON.stringify(first.slice(-4))}`,
      );
      assert.ok(text.startsWith(first), "firstMessage is a prefix of the message");

      const created = await t.call("POST", "/v1/sessions", {
        key: alice,
        body: { cwd: "/w\ud800", name: "n\udc00" },
      });
      if (created.status === 201) {
        const stored = (await t.call("GET", `/v1/sessions/${created.json.id}`, { key: alice })).json;
        assert.equal(stored.name, created.json.name, "a later read answers the name the write acknowledged");
        assert.equal(stored.cwd, created.json.cwd);
      } else {
        assert.equal(created.status, 400);
      }
    });

    // docs/server.md: "a write that would take its user past a quota is 403 quota_exceeded".
    // ops/quotas.ts `requestGrowth` has no case for renameSession, which appends a session_info entry.
    it("a rename (which appends an entry) counts against the entries quota", async () => {
      const q = await startTestServer(backend, { quotas: { maxEntries: 1 }, shutdownGraceMs: 500 });
      try {
        const key = await q.key("carol");
        const session = (await q.call("POST", "/v1/sessions", { key, body: { cwd: "/q" } })).json;
        const one = await q.call("POST", `/v1/sessions/${session.id}/entries`, {
          key,
          body: { entries: [userMessage("fills the quota")] },
        });
        assert.equal(one.status, 200);
        const two = await q.call("POST", `/v1/sessions/${session.id}/entries`, {
          key,
          body: { entries: [userMessage("one too many")] },
        });
        assert.equal(two.status, 403);
        const renames = [];
        for (let i = 0; i < 3; i++) {
          renames.push(await q.call("PATCH", `/v1/sessions/${session.id}`, { key, body: { name: `n${i}` } }));
        }
        const entryCount = (await q.call("GET", `/v1/sessions/${session.id}`, { key })).json.entryCount;
        assert.equal(entryCount, 1, "no write past the quota was stored");
        assert.deepEqual(
          renames.map((r) => r.json?.code),
          ["quota_exceeded", "quota_exceeded", "quota_exceeded"],
        );
      } finally {
        await q.close();
      }
    });
  });
}

// docs/server.md: "Every refusal is a 4xx …; bad input never causes a 5xx", and the access log
// writes `level: error` for 5xx. A client that goes away mid-body is logged and counted as a 500.
describe("adversarial requests: uploads cut off mid-body (sqlite)", () => {
  let t: TestServer;
  let key: string;
  const lines: string[] = [];

  before(async () => {
    t = await startTestServer("sqlite", {
      accessLog: (line: string) => lines.push(line),
      shutdownGraceMs: 500,
    });
    key = await t.key("alice");
  });
  after(() => t.close());

  it("is not logged or counted as a server error", async () => {
    const session = (await t.call("POST", "/v1/sessions", { key, body: { cwd: "/w" } })).json;
    const head = [
      `POST /v1/sessions/${session.id}/entries HTTP/1.1`,
      "Host: x",
      `Authorization: Bearer ${key}`,
      "Content-Type: application/json",
      "Content-Length: 100",
      "",
      '{"entries":',
    ].join("\r\n");
    await sendAndCut(t.url, head, 150);
    // The server notices the cut and writes its line.
    for (let i = 0; i < 50 && !lines.some((line) => line.includes("/entries")); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const line = lines.find((l) => l.includes(`/v1/sessions/${session.id}/entries`));
    assert.ok(line, "the request has its access-log line");
    const logged = JSON.parse(line);
    assert.ok(
      logged.status < 500,
      `logged as ${logged.status} ${logged.level}: ${JSON.stringify(logged.error)}`,
    );
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    assert.doesNotMatch(metrics, /sessiontree_http_requests_total\{[^}]*status="5\d\d"/);
  });
});

// docs/server.md, Concurrency: "requests with one key that race each run, the first to commit stores
// its answer, and the others are undone and replay it." http/idempotency.ts `runKeyed` replays only
// when the key is found before the write or when the write itself hits the stored key
// (IdempotencyKeyTaken); a racer refused by the If-Match check (412) or by the trash (404) after the
// winner committed answers that refusal. Made deterministic by holding the session's row lock from
// the test until every racer has looked its key up and queued.
describe("adversarial requests: racing retries with one Idempotency-Key (postgres)", () => {
  let db: { url: string; drop(): Promise<void> };
  let server: Awaited<ReturnType<typeof createServer>>;
  let url: string;
  let key: string;

  before(async () => {
    db = await freshPgDatabase();
    server = await createServer({ port: 0, rateLimit: false, database: db.url, shutdownGraceMs: 500 });
    url = (await server.listen()).url;
    key = (await createApiKey(server.services.db, "alice", "test")).key;
  });
  after(async () => {
    await server.close();
    await db.drop();
  });

  const send = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
    fetch(url + path, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (response) => ({ status: response.status, text: await response.text() }));

  /** Fires `count` identical requests while the session row is locked, then lets them run. */
  async function race(
    sessionId: string,
    count: number,
    fire: () => Promise<{ status: number; text: string }>,
  ) {
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query("BEGIN");
      await locker.query("SELECT 1 FROM sessions WHERE owner = $1 AND id = $2 FOR UPDATE", [
        "alice",
        sessionId,
      ]);
      const answers = Array.from({ length: count }, fire);
      await new Promise((resolve) => setTimeout(resolve, 400));
      await locker.query("COMMIT");
      return await Promise.all(answers);
    } finally {
      await locker.end();
    }
  }

  it("every racer of a conditional append answers the winner's reply, and it is written once", async () => {
    const created = await send("POST", "/v1/sessions", { cwd: "/race" }, {});
    const session = JSON.parse(created.text);
    const body = { entries: [userMessage("exactly once")] };
    const headers = { "if-match": `"${session.revision}"`, "idempotency-key": "race-append" };
    const answers = await race(session.id, 6, () =>
      send("POST", `/v1/sessions/${session.id}/entries`, body, headers),
    );
    const summary = JSON.parse((await send("GET", `/v1/sessions/${session.id}`, undefined, {})).text);
    assert.equal(summary.entryCount, 1, "written exactly once");
    assert.deepEqual(
      answers.map((a) => a.status),
      Array(6).fill(200),
      `got ${answers.map((a) => `${a.status} ${a.text}`).join(" | ")}`,
    );
    assert.equal(new Set(answers.map((a) => a.text)).size, 1, "one reply, replayed");
  });

  it("every racer of a conditional delete answers the winner's reply", async () => {
    const created = await send("POST", "/v1/sessions", { cwd: "/race" }, {});
    const session = JSON.parse(created.text);
    const headers = { "if-match": `"${session.revision}"`, "idempotency-key": "race-delete" };
    const answers = await race(session.id, 6, () =>
      send("DELETE", `/v1/sessions/${session.id}`, undefined, headers),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      Array(6).fill(200),
      `got ${answers.map((a) => `${a.status} ${a.text}`).join(" | ")}`,
    );
  });
});
