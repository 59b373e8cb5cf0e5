import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Cli, CommandContext } from "../../src/cli/command-context.js";
import { runDiff } from "../../src/cli/commands/diff-run.js";
import { runStats } from "../../src/cli/commands/stats-run.js";
import type { CliIO } from "../../src/cli/io.js";
import type { SessionEntry } from "../../src/core/entry.js";
import { sessionDirFor, sessionFileName } from "../../src/file/paths.js";
import { encodeSession } from "../../src/format/jsonl/encode.js";
import { createViewerApp } from "../../src/viewer/app.js";
import { createLocalSource } from "../../src/viewer/local-source.js";
import { type ShapeWire, shapeFromWire } from "../../src/viewer/shape-wire.js";
import type { ViewerSessionSummary } from "../../src/viewer/source.js";
import { entryMaker } from "../support/messages.js";
import { makeViewerRoots, type ViewerRoots } from "./support/sessions.js";

/** pi's own sessions (v1, from pi's test fixtures), where test/format/pi-fixtures.test.ts finds them. */
const PI_FIXTURES =
  process.env.SESSIONTREE_PI_FIXTURES ??
  join(dirname(fileURLToPath(import.meta.url)), "../../../shared/fixtures/pi");
const PI_NAMES = ["large-session.jsonl", "before-compaction.jsonl"];

type Json = Record<string, unknown>;

/** Runs a CLI command in-process with `--json` and returns what it printed, parsed. */
async function cliJson(root: string, run: (ctx: CommandContext) => Promise<void>): Promise<Json> {
  let stdout = "";
  const io: CliIO = {
    out: (text) => {
      stdout += text;
    },
    err: () => {},
    stdoutIsTTY: false,
    stderrIsTTY: false,
    env: {},
    cwd: root,
    columns: 120,
  };
  await run(new CommandContext(new Cli(io), { root, json: true }));
  return JSON.parse(stdout) as Json;
}

/** The CLI's answer less what only a file path has (`path`, and the read's `issues`). */
function withoutFile({ path: _path, issues: _issues, ...rest }: Json): Json {
  return rest;
}

describe("the viewer's /api/stats and /api/diff, against the CLI's --json", () => {
  let roots: ViewerRoots;
  let app: ReturnType<typeof createViewerApp>;
  let sessions: ViewerSessionSummary[];
  const IMPORTED = "0195f0a0-0000-7000-8000-0000000000aa";

  const get = async (path: string) => {
    const res = await app.request(path);
    return { status: res.status, body: (await res.json()) as Json };
  };
  const keyOf = (suffix: string) => {
    const found = sessions.find((s) => s.location.endsWith(suffix));
    assert.ok(found, `no session ${suffix} listed`);
    return found;
  };

  before(async () => {
    roots = makeViewerRoots();
    // The pi fixtures from where the environment says (makeViewerRoots copies the default place's).
    const piSessions = join(roots.piDir, "sessions", "--Users-badlogic-workspaces-pi-mono--");
    for (const name of PI_NAMES) copyFileSync(join(PI_FIXTURES, name), join(piSessions, name));
    // An import: one reply with the importer's zero placeholder, one with tokens and no price.
    const make = entryMaker(Date.parse("2026-03-02T10:00:00.000Z"));
    const header = make.header({ id: IMPORTED, cwd: "/work/imported", importedFrom: { format: "codex" } });
    const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
    const reply = (id: string, parent: string, usage: Json) => {
      const entry = make.assistant(id, parent) as SessionEntry & { message: Json };
      return { ...entry, message: { ...entry.message, usage } } as SessionEntry;
    };
    const entries: SessionEntry[] = [
      make.user("i1", null),
      reply("i2", "i1", zero),
      reply("i3", "i2", { ...zero, input: 40, output: 1, totalTokens: 41 }),
    ];
    const dir = sessionDirFor(roots.root, header.cwd, "sessiontree");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, sessionFileName(header.timestamp, header.id)), encodeSession(header, entries));
    app = createViewerApp(createLocalSource({ root: roots.root, piDir: roots.piDir }));
    sessions = (await get("/api/sessions")).body.sessions as ViewerSessionSummary[];
  });
  after(() => rmSync(roots.base, { recursive: true, force: true }));

  for (const name of PI_NAMES) {
    test(`pi's ${name}: the same stats as sessiontree stats --json`, async () => {
      const session = keyOf(name);
      const { status, body } = await get(`/api/stats?key=${encodeURIComponent(session.key)}`);
      assert.equal(status, 200);
      const cli = await cliJson(roots.root, (ctx) => runStats(ctx, session.location, {}));
      assert.deepEqual(body, withoutFile(cli));
      const total = body.total as { assistantMessages: number; tokens: { total: number } };
      assert.ok(total.assistantMessages > 100, "the fixture's replies are counted");
      assert.ok(total.tokens.total > 0, "and their usage");
    });
  }

  test("a pi fixture: a diff between an entry and the leaf, as sessiontree diff --json", async () => {
    const session = keyOf("large-session.jsonl");
    const wire = (await get(`/api/shape?key=${encodeURIComponent(session.key)}`)).body;
    const { ids } = shapeFromWire(wire as unknown as ShapeWire);
    const at = ids[400] as string;
    const { status, body } = await get(`/api/diff?${new URLSearchParams({ key: session.key, a: at })}`);
    assert.equal(status, 200);
    const cli = await cliJson(roots.root, (ctx) =>
      runDiff(ctx, at, undefined, { session: session.location }),
    );
    assert.deepEqual(body, withoutFile(cli));
    assert.equal((body.ancestor as { id: string }).id, at, "a linear session parts at the entry itself");
    assert.equal((body.a as { entries: unknown[] }).entries.length, 0);
    assert.ok((body.b as { toolCalls: unknown[] }).toolCalls.length > 0);
  });

  test("a branched session: stats on and off the leaf's path, usage without cost said as unknown", async () => {
    const session = keyOf(`_${roots.branched.sessionId}.jsonl`);
    const { body } = await get(`/api/stats?key=${encodeURIComponent(session.key)}`);
    const cli = await cliJson(roots.root, (ctx) => runStats(ctx, session.location, {}));
    assert.deepEqual(body, withoutFile(cli));
    const abandoned = body.abandoned as { entries: number; costUnknown: number; assistantMessages: number };
    assert.ok(abandoned.entries > 0);
    // The tests' replies carry tokens but no price: cost unknown for each, never a cost of 0 known.
    const total = body.total as { costUnknown: number; assistantMessages: number };
    assert.equal(total.costUnknown, total.assistantMessages);
    const firsts = (body.abandonedBranches as Array<{ firstId: string }>).map((b) => b.firstId);
    assert.ok(firsts.includes(roots.branched.altAnswer), firsts.join());
  });

  test("a branched session: the diff of an abandoned attempt and the leaf, as the CLI's", async () => {
    const { branched } = roots;
    const session = keyOf(`_${branched.sessionId}.jsonl`);
    const query = new URLSearchParams({ key: session.key, a: branched.refactorError, b: branched.leaf });
    const { status, body } = await get(`/api/diff?${query}`);
    assert.equal(status, 200);
    const cli = await cliJson(roots.root, (ctx) =>
      runDiff(ctx, branched.refactorError, branched.leaf, { session: session.location }),
    );
    assert.deepEqual(body, withoutFile(cli));
    assert.equal((body.ancestor as { id: string }).id, branched.diagnosis);
    const a = body.a as { onLeafPath: boolean; files: Array<{ path: string; errors: number }> };
    assert.equal(a.onLeafPath, false);
    assert.deepEqual(a.files, [{ path: "src/parser.ts", tools: ["edit"], calls: 1, errors: 1 }]);
    assert.deepEqual(body.filesInBoth, ["src/parser.ts"]);
    // Without b: the leaf.
    const byDefault = await get(
      `/api/diff?${new URLSearchParams({ key: session.key, a: branched.refactorError })}`,
    );
    assert.deepEqual(byDefault.body, body);
  });

  test("an imported session: zero usage is unknown, not zero", async () => {
    const session = keyOf(`_${IMPORTED}.jsonl`);
    const { body } = await get(`/api/stats?key=${encodeURIComponent(session.key)}`);
    assert.equal(body.imported, true);
    const total = body.total as { usageUnknown: number; costUnknown: number; tokens: { total: number } };
    assert.equal(total.usageUnknown, 1);
    assert.equal(total.tokens.total, 41);
    const cli = await cliJson(roots.root, (ctx) => runStats(ctx, session.location, {}));
    assert.deepEqual(body, withoutFile(cli));
    const diff = (await get(`/api/diff?${new URLSearchParams({ key: session.key, a: "i1", b: "i3" })}`)).body;
    assert.equal((diff.b as { usage: { usageUnknown: number } }).usage.usageUnknown, 1);
  });

  test("bad requests: typed errors", async () => {
    const key = keyOf(`_${roots.branched.sessionId}.jsonl`).key;
    const noA = await get(`/api/diff?${new URLSearchParams({ key })}`);
    assert.equal(noA.status, 400);
    assert.equal((noA.body.error as { code: string }).code, "invalid_argument");
    const unknown = await get(`/api/diff?${new URLSearchParams({ key, a: "nope" })}`);
    assert.equal(unknown.status, 404);
    assert.equal((unknown.body.error as { code: string }).code, "entry_not_found");
    const noKey = await get("/api/stats");
    assert.equal(noKey.status, 400);
    const missing = await get(`/api/stats?key=${encodeURIComponent("sessiontree:--nowhere--/x.jsonl")}`);
    assert.equal(missing.status, 404);
  });
});
