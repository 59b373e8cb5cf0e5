import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SessionManager } from "../../src/session/session-manager.js";
import { startTestServer, type TestServer } from "../server/helpers.js";
import { messageMaker } from "../support/messages.js";
import { filesById, makeSession, openInPi, readFile, syncOnce, syncWorld, tempDir } from "./helpers.js";

const m = messageMaker();

describe("sessiontree sync (in-process service on SQLite)", () => {
  const world = syncWorld("st-sync-unit-");
  const { rootA, rootB, stateA, stateB } = world;

  it("pushes a new session and pulls it into another root as a pi-compatible file", async () => {
    const made = makeSession(rootA, "/work/p", 3);
    const first = await syncOnce(rootA, world.server.url, world.key, stateA);
    assert.equal(first.report.pushed, 6);
    assert.equal(first.report.changed[0]?.created, "remote");
    const pulled = await syncOnce(rootB, world.server.url, world.key, stateB);
    assert.equal(pulled.report.pulled, 6);
    const path = filesById(rootB).get(made.id);
    assert.ok(path, "the session is in root B");
    const here = readFile(made.path);
    const there = readFile(path);
    assert.deepEqual(there.entries, here.entries);
    assert.equal(there.leaf, here.leaf);
    const pi = openInPi(path);
    assert.equal(pi.leaf, here.leaf);
    assert.equal(pi.messages, 6);
  });

  it("a second sync with no changes sends nothing but the comparison", async () => {
    const again = await syncOnce(rootA, world.server.url, world.key, stateA);
    assert.equal(again.report.changed.length, 0);
    assert.equal(again.bytes.requests, 1);
  });

  it("appends on both sides meet; each side keeps its leaf unless the other continued it", async () => {
    const id = [...filesById(rootA).keys()][0] as string;
    const pathA = filesById(rootA).get(id) as string;
    const pathB = filesById(rootB).get(id) as string;
    // A continues the conversation; B rewinds and forks.
    const a = SessionManager.open(pathA, undefined, undefined, { root: rootA });
    a.appendMessage(m.user("more from A"));
    const aLeaf = a.getLeafId();
    a.close();
    const b = SessionManager.open(pathB, undefined, undefined, { root: rootB });
    const firstAnswer = b.getEntries()[1]?.id as string;
    b.branch(firstAnswer);
    b.appendMessage(m.user("fork from B"));
    const bLeaf = b.getLeafId();
    b.close();

    await syncOnce(rootA, world.server.url, world.key, stateA);
    const fromB = await syncOnce(rootB, world.server.url, world.key, stateB);
    assert.equal(fromB.report.pulled, 1, "B gets A's entry");
    assert.equal(fromB.report.pushed, 1, "B sends its fork");
    await syncOnce(rootA, world.server.url, world.key, stateA);
    const ids = (path: string) => new Set(readFile(path).entries.map((e) => e.id));
    assert.deepEqual(ids(pathA), ids(pathB));
    // A continued the line the service had: the service fast-forwards to A's leaf; B forked and
    // keeps its own; A keeps its own (B's fork is not a continuation of A's leaf).
    assert.equal(readFile(pathA).leaf, aLeaf);
    assert.equal(readFile(pathB).leaf, bLeaf);
    assert.equal(openInPi(pathA).leaf, aLeaf);
    assert.equal(openInPi(pathB).leaf, bLeaf);
  });

  it("--leaf remote moves the local leaf to the service's, --leaf local the other way", async () => {
    const id = [...filesById(rootA).keys()][0] as string;
    const pathB = filesById(rootB).get(id) as string;
    const summary = await world.server.call("GET", `/v1/sessions/${id}`, { key: world.key });
    await syncOnce(rootB, world.server.url, world.key, stateB, { leaf: "remote" });
    assert.equal(readFile(pathB).leaf, summary.json.leafId);
    assert.equal(openInPi(pathB).leaf, summary.json.leafId);
    const b = SessionManager.open(pathB, undefined, undefined, { root: rootB });
    const target = b.getEntries()[0]?.id as string;
    b.branch(target);
    b.close();
    await syncOnce(rootB, world.server.url, world.key, stateB, { leaf: "local" });
    const after = await world.server.call("GET", `/v1/sessions/${id}`, { key: world.key });
    assert.equal(after.json.leafId, target);
  });

  it("--dry-run changes nothing: no file, no request that writes, no state", async () => {
    const made = makeSession(rootB, "/work/q", 2);
    const before = snapshot(rootB);
    const list = await world.server.call("GET", "/v1/sessions", { key: world.key });
    const dry = await syncOnce(rootB, world.server.url, world.key, stateB, { dryRun: true });
    assert.equal(dry.report.dryRun, true);
    assert.ok(dry.report.pushed >= 4);
    assert.deepEqual(snapshot(rootB), before);
    const listAfter = await world.server.call("GET", "/v1/sessions", { key: world.key });
    assert.equal(listAfter.json.items.length, list.json.items.length);
    // The real run then does what the dry run said.
    const real = await syncOnce(rootB, world.server.url, world.key, stateB);
    assert.equal(real.report.pushed, dry.report.pushed);
    assert.ok(filesById(rootB).has(made.id));
  });

  it("losing the state costs a full comparison, never a duplicate", async () => {
    const fresh = tempDir("st-sync-state-");
    try {
      const run = await syncOnce(rootA, world.server.url, world.key, fresh.path);
      assert.equal(run.report.pushed, 0, "nothing new to send");
      for (const path of filesById(rootA).values()) {
        const entries = readFile(path).entries.map((e) => e.id);
        assert.equal(new Set(entries).size, entries.length);
      }
      const second = await syncOnce(rootA, world.server.url, world.key, fresh.path);
      assert.equal(second.bytes.requests, 1);
    } finally {
      fresh.cleanup();
    }
  });
});

describe("a sync with no changes (100 sessions)", () => {
  let server: TestServer;
  const dirs = tempDir("st-sync-bytes-");
  before(async () => {
    server = await startTestServer("sqlite");
  });
  after(async () => {
    await server.close();
    dirs.cleanup();
  });

  it("transfers under 1 KB, request and answer headers included, on both copies", async (t) => {
    const key = await server.key("bob");
    const rootA = join(dirs.path, "a");
    const rootB = join(dirs.path, "b");
    for (let i = 0; i < 100; i++) makeSession(rootA, `/work/${i % 7}`, 2);
    const first = await syncOnce(rootA, server.url, key, join(dirs.path, "sa"));
    assert.equal(first.report.pushed, 400);
    const pulled = await syncOnce(rootB, server.url, key, join(dirs.path, "sb"));
    assert.equal(pulled.report.pulled, 400);
    for (const [root, state] of [
      [rootA, "sa"],
      [rootB, "sb"],
    ] as const) {
      const again = await syncOnce(root, server.url, key, join(dirs.path, state));
      assert.equal(again.report.changed.length, 0);
      assert.equal(again.report.sessions, 100);
      const bytes = again.bytes.sent + again.bytes.received;
      assert.ok(bytes < 1024, `${bytes} bytes for 100 sessions`);
      t.diagnostic(
        `no-change sync of 100 sessions: ${again.bytes.sent} B sent, ${again.bytes.received} B received`,
      );
    }
  });
});

/** Every file under a folder with its size and mtime. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      const stats = statSync(path);
      if (stats.isDirectory()) walk(path);
      else out[path] = `${stats.size}:${stats.mtimeMs}:${readFileSync(path, "utf8").length}`;
    }
  };
  walk(dir);
  return out;
}
