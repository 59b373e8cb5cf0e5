import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { encodeCwd } from "../../src/file/paths.js";
import { cliEnv, FIXTURES, REPO, readJsonl, runBin, tempWorkspace } from "./helpers.js";
import {
  BRANCHED_ID,
  errorOf,
  type McpSession,
  OTHER_ID,
  startMcp,
  textOf,
  writeBranchedRoot,
  writeSession,
} from "./mcp-support.js";

const PI_ID = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617";
const READ_TOOLS = ["get_context", "list_branches", "list_sessions", "read_entry", "search_sessions"];

interface Listing {
  sessions: Array<{
    id: string;
    name: string | null;
    cwd: string;
    firstMessage: string;
    messageCount: number;
    entryCount: number;
    path: string;
  }>;
}
interface ContextAnswer {
  at: string | null;
  leafId: string | null;
  messageCount: number;
  model: { provider: string; modelId: string } | null;
  thinkingLevel: string;
  messages: Array<{ index: number; entryId: string; role: string; text: string }>;
  omitted: Array<{ from: number; to: number }>;
  nextStart: number | null;
  note?: string;
}
interface BranchesAnswer {
  leafId: string | null;
  path: { entryCount: number; firstMessage: string; labels: Record<string, string> };
  abandonedCount: number;
  abandoned: Array<{
    tipId: string;
    partsFrom: { id: string; index: number } | null;
    entryCount: number;
    firstMessage: string;
    labels: Record<string, string>;
  }>;
  note?: string;
}
interface SearchAnswer {
  text: string;
  skipped: string[];
  hits: Array<{
    sessionId: string;
    entryId: string;
    kind: string;
    branch: string;
    snippet: string;
    score: number;
    path?: string;
  }>;
}

// The server as an agent runs it: the real launcher, spawned by the SDK's client over stdio.
describe("sessiontree mcp over a root (read-only)", () => {
  const ws = tempWorkspace();
  let files: { branched: string; other: string };
  let outside: string;
  let mcp: McpSession;

  before(async () => {
    files = writeBranchedRoot(ws.root);
    // A real pi session (format v1, 1,019 lines) beside them.
    const piFolder = join(ws.root, "sessions", encodeCwd("/Users/badlogic/workspaces/pi-mono"));
    mkdirSync(piFolder, { recursive: true });
    copyFileSync(
      join(FIXTURES, "large-session.jsonl"),
      join(piFolder, `2025-11-20T23-33-50-805Z_${PI_ID}.jsonl`),
    );
    // A session file outside the root: never reachable.
    outside = writeSession(
      join(ws.dir, "elsewhere"),
      "/work/secret",
      "2026-01-01T00-00-00-000Z",
      "5ec2e700-0000-4000-8000-000000000000",
      [
        {
          type: "session",
          version: 3,
          id: "5ec2e700-0000-4000-8000-000000000000",
          timestamp: "2026-01-01T00:00:00.000Z",
          cwd: "/work/secret",
        },
      ],
    );
    mcp = await startMcp([], { cwd: ws.dir, env: cliEnv(ws.dir) });
  });
  after(async () => {
    await mcp?.close();
    ws.cleanup();
  });

  it("offers the five read tools, each described, and nothing that writes", async () => {
    const { tools } = await mcp.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), READ_TOOLS);
    for (const tool of tools) {
      assert.ok((tool.description ?? "").length > 80, `${tool.name} is described`);
      assert.equal(tool.inputSchema.type, "object");
      assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
    }
    const context = tools.find((t) => t.name === "get_context");
    assert.deepEqual(context?.inputSchema.required, ["session"]);
    assert.match(mcp.client.getInstructions() ?? "", /read-only/i);
  });

  it("list_sessions: the root's sessions, latest first, with names, first messages and counts", async () => {
    const all = await mcp.ok<Listing>("list_sessions");
    assert.deepEqual(
      all.sessions.map((s) => s.id),
      [OTHER_ID, BRANCHED_ID, PI_ID],
    );
    const branched = all.sessions[1];
    assert.equal(branched?.name, "login flake");
    assert.equal(branched?.firstMessage, "fix the flaky login test");
    assert.equal(branched?.messageCount, 7);
    // Every line of the file but the header is an entry.
    assert.equal(branched?.entryCount, readJsonl(files.branched).length - 1);
    assert.equal(branched?.path, files.branched);
    const pi = all.sessions[2];
    assert.equal(pi?.entryCount, 1018);
    assert.match(
      all.text,
      new RegExp(`${BRANCHED_ID} .* 7 msgs  9 entries  login flake — fix the flaky login test`),
    );

    const project = await mcp.ok<Listing>("list_sessions", { cwd: "/work/project" });
    assert.deepEqual(
      project.sessions.map((s) => s.id),
      [BRANCHED_ID],
    );
    const limited = await mcp.ok<Listing>("list_sessions", { limit: 1 });
    assert.deepEqual(
      limited.sessions.map((s) => s.id),
      [OTHER_ID],
    );
  });

  it("search_sessions: entries on the path and on abandoned branches, ranked, with marked snippets", async () => {
    const retry = await mcp.ok<SearchAnswer>("search_sessions", { query: "retry BACKOFF" });
    assert.deepEqual(
      retry.hits.map((h) => [h.sessionId, h.entryId, h.kind, h.branch]),
      [[BRANCHED_ID, "u2b00001", "user", "path"]],
    );
    assert.equal(retry.hits[0]?.snippet, "rewrite the «retry» with exponential «backoff»");
    assert.equal(retry.hits[0]?.path, files.branched);

    const timeout = await mcp.ok<SearchAnswer>("search_sessions", { query: "timeout", cwd: "/work/project" });
    assert.deepEqual(timeout.hits.map((h) => [h.entryId, h.branch]).sort(), [
      ["a2a00001", "abandoned"],
      ["u2a00001", "abandoned"],
    ]);
    // Tool calls are searched by name and arguments; tool results by their text.
    const tool = await mcp.ok<SearchAnswer>("search_sessions", {
      query: "npm login",
      session: BRANCHED_ID.slice(0, 13),
    });
    assert.deepEqual(
      tool.hits.map((h) => [h.entryId, h.kind]),
      [["a2b00001", "assistant"]],
    );
    const result = await mcp.ok<SearchAnswer>("search_sessions", { query: "12 tests pass" });
    assert.deepEqual(
      result.hits.map((h) => [h.entryId, h.kind]),
      [["r2b00001", "toolResult"]],
    );
    // The real pi session is searched too; the limit keeps the best.
    const pi = await mcp.ok<SearchAnswer>("search_sessions", { query: "the", limit: 3 });
    assert.equal(pi.hits.length, 3);
    assert.match(pi.text, /^3 hit\(s\) for "the" \(the best 3; there may be more/);
    assert.ok(pi.hits.every((h) => h.sessionId === PI_ID));
    assert.ok((pi.hits[0]?.score ?? 0) >= (pi.hits[2]?.score ?? Infinity));
    // pi's v1 file has no ids: the index's are the ones the other tools take.
    const first = pi.hits[0] as SearchAnswer["hits"][number];
    const read = await mcp.ok<{ entry: { id: string } }>("read_entry", {
      session: PI_ID,
      entry: first.entryId,
    });
    assert.equal(read.entry.id, first.entryId);
    // Whole words: "timeouts" is not "timeout"; a prefix finds both.
    const plural = await mcp.ok<SearchAnswer>("search_sessions", { query: "timeouts", cwd: "/work/project" });
    assert.deepEqual(plural.hits, []);
    const prefix = await mcp.ok<SearchAnswer>("search_sessions", { query: "timeo*", cwd: "/work/project" });
    assert.equal(prefix.hits.length, timeout.hits.length);
    // A phrase: the words together, in order.
    const phrase = await mcp.ok<SearchAnswer>("search_sessions", { query: '"exponential backoff"' });
    assert.deepEqual(
      phrase.hits.map((h) => h.entryId),
      ["u2b00001"],
    );
    assert.deepEqual(
      (await mcp.ok<SearchAnswer>("search_sessions", { query: '"backoff exponential"' })).hits,
      [],
    );
    const none = await mcp.ok<SearchAnswer>("search_sessions", { query: "zebra-unicorn" });
    assert.deepEqual(none.hits, []);
    assert.deepEqual(none.skipped, []);
    assert.match(none.text, /^0 hit/);
  });

  it("get_context: what the model saw at the leaf, or at an entry of an abandoned branch", async () => {
    const leaf = await mcp.ok<ContextAnswer>("get_context", { session: BRANCHED_ID });
    assert.equal(leaf.leafId, "inf00001");
    assert.deepEqual(
      leaf.messages.map((m) => [m.entryId, m.role]),
      [
        ["u1000001", "user"],
        ["a1000001", "assistant"],
        ["u2b00001", "user"],
        ["a2b00001", "assistant"],
        ["r2b00001", "toolResult"],
      ],
    );
    assert.deepEqual(leaf.model, { provider: "anthropic", modelId: "claude-sonnet-4-5" });
    assert.match(
      leaf.text,
      /exponential backoff[\s\S]*→ bash \{"command":"npm test -- login"\}[\s\S]*all 12 tests pass/,
    );
    assert.doesNotMatch(leaf.text, /timeout/);

    const abandoned = await mcp.ok<ContextAnswer>("get_context", { session: files.branched, entry: "a2a0" });
    assert.equal(abandoned.at, "a2a00001");
    assert.deepEqual(
      abandoned.messages.map((m) => m.entryId),
      ["u1000001", "a1000001", "u2a00001", "a2a00001"],
    );
    assert.match(abandoned.text, /Raised the timeout to 30 seconds/);
  });

  it("get_context cuts a long context to its budget: the first message, the latest, and pages", async () => {
    const cut = await mcp.ok<ContextAnswer>("get_context", { session: PI_ID, maxChars: 3000 });
    assert.equal(cut.messageCount, 914);
    assert.equal(cut.thinkingLevel, "off");
    assert.deepEqual(cut.model, { provider: "anthropic", modelId: "claude-sonnet-4-5" });
    assert.ok(cut.text.length < 4000, `${cut.text.length} characters`);
    assert.equal(cut.messages[0]?.index, 0);
    assert.equal(cut.messages.at(-1)?.index, 913);
    assert.equal(cut.omitted.length, 1);
    assert.equal(cut.omitted[0]?.from, 1);
    assert.match(cut.text, /messages left out \(1–\d+; ask with start=1\)/);
    assert.match(cut.note ?? "", /v1 file/);

    const page = await mcp.ok<ContextAnswer>("get_context", { session: PI_ID, maxChars: 5000, start: 100 });
    assert.equal(page.messages[0]?.index, 100);
    const next = page.nextStart as number;
    assert.ok(next > 100 && next < 914);
    assert.deepEqual(
      page.messages.map((m) => m.index),
      Array.from({ length: next - 100 }, (_, i) => 100 + i),
    );
    const following = await mcp.ok<ContextAnswer>("get_context", {
      session: PI_ID,
      maxChars: 5000,
      start: next,
    });
    assert.equal(following.messages[0]?.index, next);
  });

  it("list_branches: the path and the abandoned attempt, where it parts, its first message and labels", async () => {
    const view = await mcp.ok<BranchesAnswer>("list_branches", { session: BRANCHED_ID.slice(0, 13) });
    assert.equal(view.leafId, "inf00001");
    assert.equal(view.path.entryCount, 7);
    assert.equal(view.path.firstMessage, "fix the flaky login test");
    assert.deepEqual(view.path.labels, { a1000001: "investigation done" });
    assert.equal(view.abandonedCount, 1);
    assert.deepEqual(view.abandoned, [
      {
        tipId: "a2a00001",
        partsFrom: { id: "a1000001", index: 1, text: "Looking at the retry logic in login.spec.ts" },
        entryCount: 2,
        firstMessage: "try increasing the timeout",
        lastTimestamp: readJsonl(files.branched)[4]?.timestamp,
        labels: {},
      },
    ]);
    assert.match(view.text, /1 abandoned branch\(es\):\n- tip a2a00001, 2 entries/);
  });

  it("read_entry: one entry whole, as in the file; the ids a v1 file was given stay valid", async () => {
    const read = await mcp.ok<{
      entry: unknown;
      onPath: boolean;
      isLeaf: boolean;
      label: string | null;
      childIds: string[];
    }>("read_entry", { session: BRANCHED_ID, entry: "a1000001" });
    assert.deepEqual(read.entry, readJsonl(files.branched)[2]);
    assert.deepEqual([read.onPath, read.isLeaf, read.label], [true, false, "investigation done"]);
    assert.deepEqual(read.childIds.sort(), ["u2a00001", "u2b00001"]);
    assert.deepEqual(
      JSON.parse(
        textOf(await mcp.call("read_entry", { session: BRANCHED_ID, entry: "r2b" }))
          .split("\n")
          .slice(1)
          .join("\n"),
      ),
      readJsonl(files.branched)[7],
    );

    // pi's v1 file has no ids: the ones list_branches gave are the ones read_entry takes.
    const branches = await mcp.ok<BranchesAnswer>("list_branches", { session: PI_ID });
    assert.match(branches.note ?? "", /v1 file/);
    const leaf = await mcp.ok<{ entry: { id: string; type: string }; isLeaf: boolean }>("read_entry", {
      session: PI_ID,
      entry: branches.leafId as string,
    });
    assert.equal(leaf.isLeaf, true);
    assert.equal(leaf.entry.id, branches.leafId);
  });

  it("answers bad references with error results, and reaches nothing outside the root", async () => {
    const unknown = errorOf(await mcp.call("get_context", { session: "no-such-session" }));
    assert.equal(unknown.code, "session_not_found");
    // A real session file, outside the root: answered exactly like an unknown one.
    for (const ref of [outside, "5ec2e700", "../elsewhere/x.jsonl", "/etc/passwd"]) {
      const error = errorOf(await mcp.call("read_entry", { session: ref, entry: "x" }));
      assert.deepEqual(error, { code: "session_not_found", message: `No session "${ref}" here` }, ref);
    }
    assert.equal(
      errorOf(await mcp.call("search_sessions", { query: "x", session: outside })).code,
      "session_not_found",
    );
    assert.equal(
      errorOf(await mcp.call("read_entry", { session: BRANCHED_ID, entry: "zzz" })).code,
      "entry_not_found",
    );
    // "0b5e7a1c" is the start of both test sessions' ids.
    assert.equal(errorOf(await mcp.call("list_branches", { session: "0b5e7a1c" })).code, "invalid_argument");
    assert.equal(errorOf(await mcp.call("search_sessions", { query: "   " })).code, "invalid_argument");
    // Words are what the index searches: a query of none is refused by it, not answered empty.
    assert.equal(errorOf(await mcp.call("search_sessions", { query: "*** --" })).code, "invalid_argument");
    // Tools that write are not there without --allow-writes; arguments are checked by their schemas.
    assert.match(
      textOf(await mcp.call("checkout", { session: BRANCHED_ID, entry: "a2a00001" })),
      /not found/,
    );
    assert.equal((await mcp.call("list_sessions", { limit: 0 })).isError, true);
    // The server is still up, and its stdout held nothing but the protocol.
    await mcp.ok("list_sessions");
    assert.deepEqual(mcp.protocolErrors, []);
    assert.match(mcp.stderr(), /sessiontree mcp: serving sessions from root .*, read-only/);
  });
});

describe("sessiontree mcp --allow-writes", () => {
  const ws = tempWorkspace();
  let files: { branched: string; other: string };
  let mcp: McpSession;

  before(async () => {
    files = writeBranchedRoot(ws.root);
    mcp = await startMcp(["--allow-writes", "--root", ws.root], {
      cwd: ws.dir,
      env: cliEnv(ws.dir, { SESSIONTREE_ROOT: "/nonexistent" }),
    });
  });
  after(async () => {
    await mcp?.close();
    ws.cleanup();
  });

  it("labels an entry and moves the leaf, appending to the file and deleting nothing", async () => {
    const { tools } = await mcp.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [...READ_TOOLS, "checkout", "label_entry"].sort());
    const before = readFileSync(files.branched, "utf8");

    const labelled = await mcp.ok<{ entryId: string; label: string }>("label_entry", {
      session: BRANCHED_ID.slice(0, 13),
      entry: "a2a0",
      label: "first try",
    });
    assert.deepEqual([labelled.entryId, labelled.label], ["a2a00001", "first try"]);
    const moved = await mcp.ok<{ previousLeafId: string; leafId: string }>("checkout", {
      session: BRANCHED_ID,
      entry: "a2a00001",
    });
    assert.equal(moved.leafId, "a2a00001");

    const after = readFileSync(files.branched, "utf8");
    assert.ok(after.startsWith(before), "the file was only appended to");
    const added = readJsonl(files.branched).slice(before.trim().split("\n").length);
    assert.deepEqual(
      added.map((line) => line.type),
      ["label", "custom"],
    );
    assert.equal(added[0]?.targetId, "a2a00001");

    // The next reads see the change: the leaf is on the other attempt now, which is labelled.
    const context = await mcp.ok<ContextAnswer>("get_context", { session: BRANCHED_ID });
    assert.equal(context.leafId, "a2a00001");
    assert.match(context.text, /Raised the timeout/);
    const branches = await mcp.ok<BranchesAnswer>("list_branches", { session: BRANCHED_ID });
    assert.deepEqual(branches.path.labels, { a1000001: "investigation done", a2a00001: "first try" });
    // The path left behind now ends at the label entry just appended (at the leaf of then).
    assert.deepEqual(
      branches.abandoned.map((b) => [b.tipId, b.partsFrom?.id, b.entryCount]),
      [[added[0]?.id, "a1000001", 6]],
    );

    const cleared = await mcp.ok<{ label: string | null }>("label_entry", {
      session: BRANCHED_ID,
      entry: "a2a00001",
    });
    assert.equal(cleared.label, null);
    assert.equal(
      errorOf(await mcp.call("checkout", { session: OTHER_ID, entry: "nope" })).code,
      "entry_not_found",
    );
    assert.match(mcp.stderr(), /writes allowed/);
  });

  it("refuses to write to a v1 file whose ids it made up", async () => {
    const folder = join(ws.root, "sessions", encodeCwd("/Users/badlogic/workspaces/pi-mono"));
    mkdirSync(folder, { recursive: true });
    const path = join(folder, `2025-11-20T23-33-50-805Z_${PI_ID}.jsonl`);
    copyFileSync(join(FIXTURES, "large-session.jsonl"), path);
    const bytes = readFileSync(path);
    const { leafId } = await mcp.ok<BranchesAnswer>("list_branches", { session: PI_ID });
    const refused = errorOf(
      await mcp.call("label_entry", { session: PI_ID, entry: leafId as string, label: "x" }),
    );
    assert.equal(refused.code, "invalid_argument");
    assert.match(refused.message, /sessiontree migrate/);
    assert.deepEqual(readFileSync(path), bytes);
  });
});

describe("sessiontree mcp: the command line", () => {
  const ws = tempWorkspace();
  after(() => ws.cleanup());

  it("costs the other commands nothing: ls loads neither the MCP SDK nor zod", () => {
    const child = spawnSync(process.execPath, [join(REPO, "scripts/cli-modules.mjs"), "--json", "ls"], {
      cwd: ws.dir,
      env: { ...cliEnv(ws.dir), SESSIONTREE_FROM_SOURCE: "1" },
      encoding: "utf8",
    });
    assert.equal(child.status, 0, child.stderr);
    const loaded = JSON.parse(child.stdout) as { project: string[]; packages: string[] };
    assert.ok(loaded.project.includes("src/cli/commands/mcp.ts"), "the command is registered");
    for (const heavy of ["@modelcontextprotocol/sdk", "zod"])
      assert.ok(!loaded.packages.includes(heavy), heavy);
    assert.deepEqual(
      loaded.project.filter((path) => path.startsWith("src/cli/mcp/") || path.endsWith("mcp-run.ts")),
      [],
    );
  });

  it("--server wants a key and no --root; its help names the tools", () => {
    const env = cliEnv(ws.dir);
    const noKey = runBin(["mcp", "--server", "http://127.0.0.1:9"], { cwd: ws.dir, env });
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /SESSIONTREE_API_KEY/);
    assert.equal(noKey.stdout, "");
    const both = runBin(["mcp", "--server", "http://127.0.0.1:9", "--root", ws.root], {
      cwd: ws.dir,
      env: { ...env, SESSIONTREE_API_KEY: "st_x" },
    });
    assert.equal(both.code, 2);
    assert.match(both.stderr, /without --root/);
    const help = runBin(["mcp", "--help"], { cwd: ws.dir, env });
    assert.match(help.stdout, /list_sessions, search_sessions, get_context, list_branches, read_entry/);
  });
});
