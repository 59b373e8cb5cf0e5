import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SessionTreeClient } from "../../src/client/index.js";
import { startTestServer, type TestServer } from "../server/helpers.js";
import { cliEnv, tempWorkspace } from "./helpers.js";
import { errorOf, type McpSession, startMcp, textOf, writeBranchedRoot } from "./mcp-support.js";

const SECRET_ID = "5ec2e700-0000-4000-8000-0000000000aa";

// docs/mcp.md, Scope: "any other path (a file elsewhere, a symlink out, /etc/passwd) answers
// session_not_found, exactly like an unknown id".
describe("mcp edges: a symlink in the root pointing out of it", () => {
  const ws = tempWorkspace();
  let outside: string;
  let mcp: McpSession;

  before(async () => {
    const files = writeBranchedRoot(ws.root);
    const secretDir = join(ws.dir, "elsewhere");
    mkdirSync(secretDir, { recursive: true });
    outside = join(secretDir, "secret.jsonl");
    const header = {
      type: "session",
      version: 3,
      id: SECRET_ID,
      timestamp: "2026-03-01T10:00:00.000Z",
      cwd: "/secret",
    };
    const message = {
      type: "message",
      id: "s1000001",
      parentId: null,
      timestamp: "2026-03-01T10:00:01.000Z",
      message: { role: "user", content: "the launch codes", timestamp: 1 },
    };
    writeFileSync(outside, `${JSON.stringify(header)}\n${JSON.stringify(message)}\n`);
    symlinkSync(outside, join(dirname(files.branched), `2026-03-01T10-00-00-000Z_${SECRET_ID}.jsonl`));
    mcp = await startMcp(["--root", ws.root], { cwd: ws.dir, env: cliEnv(ws.dir) });
  });
  after(async () => {
    await mcp?.close();
    ws.cleanup();
  });

  it("reads nothing through it: not by id, not by the outside path, not listed, not searched", async () => {
    for (const ref of [SECRET_ID, SECRET_ID.slice(0, 8), outside]) {
      const error = errorOf(await mcp.call("get_context", { session: ref }));
      assert.equal(error.code, "session_not_found", ref);
    }
    const listed = await mcp.ok<{ sessions: Array<{ id: string }> }>("list_sessions");
    assert.ok(!listed.sessions.some((s) => s.id === SECRET_ID), "listed");
    const found = await mcp.call("search_sessions", { query: "launch codes" });
    assert.match(textOf(found), /^0 hit\(s\)/, "no hit in the outside file");
    assert.ok(!textOf(found).includes(SECRET_ID), "the outside session is not named");
  });
});

// docs/mcp.md, search_sessions: "a `session` is resolved as every tool resolves it" — a reference
// that names no session of the key's user is session_not_found, never "no session filter".
describe("mcp edges: --server with a dot-segment session reference", () => {
  const ws = tempWorkspace();
  let t: TestServer;
  let mcp: McpSession;

  before(async () => {
    t = await startTestServer("sqlite");
    const key = await t.key("alice");
    const alice = new SessionTreeClient({ baseUrl: t.url, token: key });
    const s = await alice.createSession({ cwd: "/srv/app" });
    await alice.append(s.id, [
      {
        type: "message",
        id: "u1",
        parentId: null,
        timestamp: "2026-04-01T00:00:01.000Z",
        message: { role: "user", content: "the quarterly numbers", timestamp: 1 },
      } as never,
    ]);
    mcp = await startMcp(["--server", t.url], {
      cwd: ws.dir,
      env: cliEnv(ws.dir, { SESSIONTREE_API_KEY: key }),
    });
  });
  after(async () => {
    await mcp?.close();
    await t?.close();
    ws.cleanup();
  });

  it('search_sessions { session: "." } is session_not_found, not a search of every session', async () => {
    const error = errorOf(await mcp.call("search_sessions", { query: "quarterly", session: "." }));
    assert.deepEqual(error, { code: "session_not_found", message: 'No session "." here' });
    const context = errorOf(await mcp.call("get_context", { session: "." }));
    assert.deepEqual(context, { code: "session_not_found", message: 'No session "." here' });
  });
});
