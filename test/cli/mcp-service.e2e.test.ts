import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { SessionTreeClient } from "../../src/client/index.js";
import { startTestServer, type TestServer } from "../server/helpers.js";
import { messageMaker } from "../support/messages.js";
import { cliEnv, tempWorkspace } from "./helpers.js";
import { errorOf, type McpSession, startMcp } from "./mcp-support.js";

const m = messageMaker(Date.parse("2026-04-01T00:00:00.000Z"));
let clock = Date.parse("2026-04-01T00:00:00.000Z");
function message(id: string, parentId: string | null, body: Record<string, unknown>) {
  clock += 1000;
  return { type: "message", id, parentId, timestamp: new Date(clock).toISOString(), message: body };
}

// `sessiontree mcp --server URL`: the service's sessions, as the key's user and nobody else.
describe("sessiontree mcp --server (sqlite service)", () => {
  const ws = tempWorkspace();
  let t: TestServer;
  let alice: SessionTreeClient;
  let aliceKey: string;
  let aliceSession: string;
  let bobSession: string;
  let mcp: McpSession;
  let writer: McpSession | undefined;

  before(async () => {
    t = await startTestServer("sqlite");
    aliceKey = await t.key("alice");
    alice = new SessionTreeClient({ baseUrl: t.url, token: aliceKey });
    const bob = new SessionTreeClient({ baseUrl: t.url, token: await t.key("bob") });
    // alice: u1 → a1 → u2a "use a cache"  (abandoned)
    //                → u2b "batch the queries" → a2b (the leaf)
    const s = await alice.createSession({ cwd: "/srv/app", name: "slow endpoint" });
    aliceSession = s.id;
    await alice.append(s.id, [
      message("u1", null, m.user("the orders endpoint is slow")),
      message("a1", "u1", m.assistant("It runs one query per order.")),
      message("u2a", "a1", m.user("use a cache")),
    ]);
    await alice.setLeaf(s.id, "a1");
    await alice.append(s.id, [
      message("u2b", "a1", m.user("batch the queries instead")),
      message("a2b", "u2b", m.assistant("Batched: one query for all orders.")),
    ]);
    const b = await bob.createSession({ cwd: "/srv/app" });
    bobSession = b.id;
    await bob.append(b.id, [message("x1", null, m.user("bob's private query plan"))]);
    mcp = await startMcp(["--server", t.url], {
      cwd: ws.dir,
      env: cliEnv(ws.dir, { SESSIONTREE_API_KEY: aliceKey }),
    });
  });
  after(async () => {
    await mcp?.close();
    await writer?.close();
    await t?.close();
    ws.cleanup();
  });

  it("lists, searches, projects and reads only the key's user's sessions", async () => {
    const listed = await mcp.ok<{
      sessions: Array<{ id: string; name: string; entryCount: number; firstMessage: string }>;
    }>("list_sessions");
    assert.deepEqual(
      listed.sessions.map((s) => [s.id, s.name, s.entryCount, s.firstMessage]),
      [[aliceSession, "slow endpoint", 5, "the orders endpoint is slow"]],
    );
    assert.deepEqual(
      (await mcp.ok<{ sessions: unknown[] }>("list_sessions", { cwd: "/elsewhere" })).sessions,
      [],
    );

    const search = await mcp.ok<{ hits: Array<{ entryId: string; branch: string; sessionId: string }> }>(
      "search_sessions",
      { query: "query" },
    );
    assert.deepEqual(search.hits.map((h) => [h.sessionId, h.entryId, h.branch]).sort(), [
      [aliceSession, "a1", "path"],
      [aliceSession, "a2b", "path"],
    ]);

    const context = await mcp.ok<{ messages: Array<{ entryId: string }>; leafId: string }>("get_context", {
      session: aliceSession.slice(0, 12),
    });
    assert.equal(context.leafId, "a2b");
    assert.deepEqual(
      context.messages.map((x) => x.entryId),
      ["u1", "a1", "u2b", "a2b"],
    );
    const atCache = await mcp.ok<{ messages: Array<{ entryId: string }> }>("get_context", {
      session: aliceSession,
      entry: "u2a",
    });
    assert.deepEqual(
      atCache.messages.map((x) => x.entryId),
      ["u1", "a1", "u2a"],
    );
    // The service's own projection agrees.
    const served = await alice.getContext(aliceSession, "u2a");
    assert.deepEqual(served.messageEntryIds, ["u1", "a1", "u2a"]);

    const branches = await mcp.ok<{ abandoned: Array<{ tipId: string; partsFrom: { id: string } | null }> }>(
      "list_branches",
      { session: aliceSession },
    );
    assert.deepEqual(
      branches.abandoned.map((b) => [b.tipId, b.partsFrom?.id]),
      [["u2a", "a1"]],
    );
    const read = await mcp.ok<{ entry: { id: string; message: { content: string } } }>("read_entry", {
      session: aliceSession,
      entry: "u2a",
    });
    assert.equal(read.entry.message.content, "use a cache");

    // bob's session exists, but not for alice's key: the same answer as a made-up id.
    assert.equal(errorOf(await mcp.call("get_context", { session: bobSession })).code, "session_not_found");
    assert.equal(
      errorOf(await mcp.call("read_entry", { session: bobSession, entry: "x1" })).code,
      "session_not_found",
    );
    assert.equal(errorOf(await mcp.call("list_branches", { session: "nope" })).code, "session_not_found");
    const abandoned = await mcp.ok<{ hits: Array<{ entryId: string; branch: string }> }>("search_sessions", {
      query: "cache",
    });
    assert.deepEqual(
      abandoned.hits.map((h) => [h.entryId, h.branch]),
      [["u2a", "abandoned"]],
    );
    // bob's words are in the service, never in alice's answers: searched alone, by prefix or in bob's session.
    const bobsWords = await mcp.ok<{ hits: unknown[] }>("search_sessions", { query: "private plan" });
    assert.deepEqual(bobsWords.hits, []);
    assert.deepEqual((await mcp.ok<{ hits: unknown[] }>("search_sessions", { query: "priv*" })).hits, []);
    assert.equal(
      errorOf(await mcp.call("search_sessions", { query: "query", session: bobSession })).code,
      "session_not_found",
    );
    // One session by id prefix; a directory: the hits of its sessions only.
    const inSession = await mcp.ok<{ hits: Array<{ entryId: string }> }>("search_sessions", {
      query: "orders",
      session: aliceSession.slice(0, 12),
    });
    assert.deepEqual(inSession.hits.map((h) => h.entryId).sort(), ["a2b", "u1"]);
    const inCwd = await mcp.ok<{ hits: Array<{ entryId: string }> }>("search_sessions", {
      query: "orders",
      cwd: "/srv/app",
    });
    assert.deepEqual(inCwd.hits.map((h) => h.entryId).sort(), ["a2b", "u1"]);
    const elsewhere = await mcp.ok<{ hits: unknown[] }>("search_sessions", {
      query: "orders",
      cwd: "/elsewhere",
    });
    assert.deepEqual(elsewhere.hits, []);
    // The service's own refusal of a query comes back as an error result, with its code.
    assert.equal(errorOf(await mcp.call("search_sessions", { query: "***" })).code, "invalid_argument");
    assert.deepEqual(mcp.protocolErrors, []);
    assert.match(
      mcp.stderr(),
      new RegExp(`serving sessions from service ${t.url.replace(/[.]/g, "\\.")}, read-only`),
    );
  });

  it("with --allow-writes, labels and checks out through the service", async () => {
    writer = await startMcp(["--server", t.url, "--allow-writes"], {
      cwd: ws.dir,
      env: cliEnv(ws.dir, { SESSIONTREE_API_KEY: aliceKey }),
    });
    await writer.ok("label_entry", { session: aliceSession, entry: "a1", label: "diagnosis" });
    assert.deepEqual((await alice.getLabels(aliceSession)).labels, { a1: "diagnosis" });
    await writer.ok("checkout", { session: aliceSession, entry: "u2a" });
    assert.equal((await alice.getSession(aliceSession)).leafId, "u2a");
    const context = await writer.ok<{ leafId: string }>("get_context", { session: aliceSession });
    assert.equal(context.leafId, "u2a");
    assert.equal(
      errorOf(await writer.call("checkout", { session: bobSession, entry: "x1" })).code,
      "session_not_found",
    );
  });
});
