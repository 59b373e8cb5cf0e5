// The stats API (issue 18.4): GET /v1/sessions/{id}/stats and GET /v1/stats answer what
// `sessiontree stats --json` answers for the same session (the same src/format/stats*.ts functions),
// for the user's own sessions only.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Cli, CommandContext } from "../../src/cli/command-context.js";
import { runStats, type StatsOptions } from "../../src/cli/commands/stats-run.js";
import type { CliIO } from "../../src/cli/io.js";
import { SessionTreeClient } from "../../src/client/index.js";
import { BACKENDS, startTestServer, type TestServer } from "./helpers.js";

const FIXTURES =
  process.env.SESSIONTREE_PI_FIXTURES ??
  join(dirname(fileURLToPath(import.meta.url)), "../../../shared/fixtures/pi");
const FIXTURE = join(FIXTURES, "large-session.jsonl");
type Json = Record<string, unknown>;

const scratch = mkdtempSync(join(tmpdir(), "st-stats-api-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** `sessiontree stats <file> --json` in-process: what the CLI answers for the fixture. */
async function cliStats(options: StatsOptions = {}): Promise<Json> {
  let stdout = "";
  const io: CliIO = {
    out: (text) => {
      stdout += text;
    },
    err: () => {},
    stdoutIsTTY: false,
    stderrIsTTY: false,
    env: {},
    cwd: scratch,
    columns: 120,
  };
  await runStats(
    new CommandContext(new Cli(io), { root: join(scratch, "root"), json: true }),
    FIXTURE,
    options,
  );
  return JSON.parse(stdout) as Json;
}

/** What a stats answer counts, without what names one copy of the session (its ids, its file). */
function counted(stats: Json): Json {
  const branches = (stats.abandonedBranches ?? []) as Json[];
  return {
    entries: stats.entries,
    time: stats.time,
    total: stats.total,
    leafPath: stats.leafPath,
    abandoned: stats.abandoned,
    abandonedShare: stats.abandonedShare,
    models: stats.models,
    tools: stats.tools,
    branches: branches.map(({ tag, text, last, tally }) => ({ tag, text, last, tally })),
  };
}

for (const backend of BACKENDS) {
  describe(`stats API (${backend})`, () => {
    let t: TestServer;
    let alice: string;
    let bob: string;
    let id: string;
    before(async () => {
      t = await startTestServer(backend);
      alice = await t.key("alice");
      bob = await t.key("bob");
      const imported = await t.call("POST", "/v1/sessions/import", {
        key: alice,
        raw: readFileSync(FIXTURE, "utf8"),
        headers: { "content-type": "application/x-ndjson" },
      });
      assert.equal(imported.status, 201);
      id = imported.json.id;
    });
    after(() => t.close());

    it("one session: the totals `sessiontree stats --json` gives for the same file", async () => {
      const cli = await cliStats();
      const r = await t.call("GET", `/v1/sessions/${id}/stats`, { key: alice });
      assert.equal(r.status, 200);
      assert.equal(
        r.headers.get("etag"),
        `"${(await t.call("GET", `/v1/sessions/${id}`, { key: alice })).json.revision}"`,
      );
      assert.deepEqual(counted(r.json), counted(cli));
      assert.deepEqual(
        [r.json.sessionId, r.json.cwd, r.json.imported, r.json.since],
        [id, cli.cwd, false, null],
      );
      const total = r.json.total as { assistantMessages: number; tokens: { total: number } };
      assert.equal(total.assistantMessages, 453, "the fixture's assistant messages");
      assert.ok(total.tokens.total > 0);
    });

    it("over the user's sessions: by model and by cwd, as the CLI groups the same session", async () => {
      for (const by of ["model", "cwd"] as const) {
        const cli = await cliStats({ by });
        const r = await t.call("GET", `/v1/stats?by=${by}`, { key: alice });
        assert.equal(r.status, 200, by);
        assert.equal(r.json.sessions, 1);
        assert.equal(r.json.by, by);
        assert.deepEqual(counted(r.json), counted(cli), by);
        assert.deepEqual(r.json.groups, cli.groups, by);
      }
      const byDay = await t.call("GET", "/v1/stats?by=day", { key: alice });
      for (const group of byDay.json.groups as Json[])
        assert.match(group.key as string, /^\d{4}-\d{2}-\d{2}$/);
      const bySession = await t.call("GET", "/v1/stats", { key: alice });
      assert.deepEqual(
        (bySession.json.groups as Json[]).map((g) => [g.key, g.path]),
        [[id, undefined]],
      );
    });

    it("since: entries before it do not count; a malformed one is a 400", async () => {
      const later = await t.call("GET", `/v1/sessions/${id}/stats?since=2099-01-01`, { key: alice });
      assert.deepEqual(
        [later.status, later.json.entries, later.json.since],
        [200, 0, "2099-01-01T00:00:00.000Z"],
      );
      const all = await t.call("GET", "/v1/stats?since=2000-01-01T00:00:00Z", { key: alice });
      assert.equal(all.json.sessions, 1);
      const none = await t.call("GET", "/v1/stats?since=1h", { key: alice });
      assert.equal(none.json.sessions, 0, "the fixture's entries are older than an hour");
      for (const bad of ["yesterday", "2026-01-01T10:00", "2026-13-45"]) {
        const r = await t.call("GET", `/v1/stats?since=${bad}`, { key: alice });
        assert.deepEqual([r.status, r.json.code], [400, "invalid_request"], bad);
      }
      const badBy = await t.call("GET", "/v1/stats?by=week", { key: alice });
      assert.equal(badBy.status, 400);
    });

    it("isolation: another user's session answers like a missing one, and is in no total of theirs", async () => {
      const theirs = await t.call("GET", `/v1/sessions/${id}/stats`, { key: bob });
      const missing = await t.call("GET", "/v1/sessions/no-such-session/stats", { key: bob });
      assert.deepEqual([theirs.status, theirs.json.code], [404, "session_not_found"]);
      assert.deepEqual([missing.status, missing.json.code], [404, "session_not_found"]);
      const bobs = await t.call("GET", "/v1/stats", { key: bob });
      assert.deepEqual([bobs.json.sessions, bobs.json.entries, bobs.json.groups], [0, 0, []]);
      const anonymous = await t.call("GET", "/v1/stats", { key: null });
      assert.equal(anonymous.status, 401);
    });

    it("the typed client: sessionStats() and stats(); a deleted session leaves the totals", async () => {
      const client = new SessionTreeClient({ baseUrl: t.url, token: alice });
      const one = await client.sessionStats(id, { idle: 5 });
      assert.equal(one.time.idleGapMs, 300_000);
      const many = await client.stats({ by: "model" });
      assert.equal(many.total.tokens.total, one.total.tokens.total);
      const extra = await client.createSession({ cwd: "/elsewhere" });
      await client.deleteSession(extra.id);
      const { id: deleted } = await client.importJsonl(readFileSync(FIXTURE, "utf8"));
      await client.deleteSession(deleted);
      assert.equal((await client.stats()).sessions, 1, "deleted sessions are not counted");
      await assert.rejects(client.sessionStats(deleted), { status: 404, code: "session_not_found" });
    });
  });
}
