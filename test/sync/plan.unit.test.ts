import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SessionEntry } from "../../src/core/entry.js";
import { SessionTree } from "../../src/core/tree.js";
import { syncDigest } from "../../src/format/sync-digest.js";
import { isOnPath, localLeafAfterPull, remoteLeafAfterPush } from "../../src/sync/leaf.js";
import { planSync } from "../../src/sync/plan.js";
import { batches, planPush } from "../../src/sync/push.js";
import type { LocalScan, LocalSession } from "../../src/sync/scan.js";
import type { SessionSyncState } from "../../src/sync/state.js";

const local = (id: string, size = 100): LocalSession => ({
  id,
  path: `/r/${id}.jsonl`,
  ino: 1,
  size,
  mtimeMs: 5,
});
const scanOf = (...sessions: LocalSession[]): LocalScan => ({
  sessions: new Map(sessions.map((s) => [s.id, s])),
  duplicates: [],
});
const synced = (id: string, revision: number, entryCount: number, size = 100): SessionSyncState => ({
  path: `/r/${id}.jsonl`,
  ino: 1,
  size,
  mtimeMs: 5,
  stored: entryCount,
  after: entryCount,
  revision,
  entryCount,
});

describe("sync plan", () => {
  it("nothing to do when neither side moved", () => {
    const plan = planSync(scanOf(local("a")), { a: synced("a", 3, 2) }, null);
    assert.deepEqual(plan.work, []);
  });

  it("a grown file, a new file, and a session new on the service are work; a deleted one is gone", () => {
    const states = { a: synced("a", 3, 2), b: synced("b", 4, 4), gone: synced("gone", 2, 1) };
    const scan = scanOf(local("a", 150), local("b"), local("new"), local("gone"));
    const marks = [
      { id: "a", revision: 3, entryCount: 2 },
      { id: "b", revision: 4, entryCount: 4 },
      { id: "remote-only", revision: 2, entryCount: 1 },
    ];
    const plan = planSync(scan, states, marks);
    const work = Object.fromEntries(plan.work.map((w) => [w.id, w.onServer]));
    assert.deepEqual(work, { a: "yes", new: "no", gone: "gone", "remote-only": "yes" });
    assert.deepEqual(plan.gone, ["gone"]);
  });

  it("a session the service moved is work even when the file did not change", () => {
    const plan = planSync(scanOf(local("a")), { a: synced("a", 3, 2) }, [
      { id: "a", revision: 5, entryCount: 3 },
    ]);
    assert.deepEqual(
      plan.work.map((w) => w.id),
      ["a"],
    );
  });

  it("a local file that went away is pulled again; a forgotten session leaves the state", () => {
    const plan = planSync(scanOf(), { a: synced("a", 3, 2), b: synced("b", 2, 2) }, [
      { id: "a", revision: 3, entryCount: 2 },
    ]);
    assert.deepEqual(
      plan.work.map((w) => [w.id, w.local]),
      [["a", undefined]],
    );
    assert.deepEqual(plan.forget, ["b"]);
  });

  it("the digest depends on the marks, not their order", () => {
    const a = { id: "a", revision: 1, entryCount: 0 };
    const b = { id: "b", revision: 2, entryCount: 1 };
    assert.equal(syncDigest([a, b]), syncDigest([b, a]));
    assert.notEqual(syncDigest([a, b]), syncDigest([a, { ...b, revision: 3 }]));
    assert.equal(syncDigest([]).length, 32);
  });
});

/** A user message entry with this id under this parent. */
function message(id: string, parentId: string | null): SessionEntry {
  return {
    type: "message",
    id,
    parentId,
    timestamp: "2026-01-01T00:00:00.000Z",
    message: { role: "user", content: id, timestamp: 1 },
  } as SessionEntry;
}

/** root → x → y, root → z (a fork), as entries. */
function forkedTree(): SessionTree {
  const tree = new SessionTree();
  for (const entry of [message("r", null), message("x", "r"), message("y", "x"), message("z", "r")])
    tree.load(entry as never);
  return tree;
}

describe("sync leaves", () => {
  const tree = forkedTree();

  it("auto fast-forwards only along the leaf's own path", () => {
    assert.equal(isOnPath(tree, "x", "y"), true);
    assert.equal(isOnPath(tree, "z", "y"), false);
    assert.equal(localLeafAfterPull("auto", tree, "x", "y"), "y");
    assert.equal(localLeafAfterPull("auto", tree, "z", "y"), "z");
    assert.equal(localLeafAfterPull("auto", tree, null, "y"), "y");
    assert.equal(remoteLeafAfterPush("auto", tree, "y", "x"), "y");
    assert.equal(remoteLeafAfterPush("auto", tree, "z", "y"), undefined);
  });

  it("local and remote modes move one side to the other", () => {
    assert.equal(localLeafAfterPull("remote", tree, "z", "y"), "y");
    assert.equal(localLeafAfterPull("local", tree, "x", "y"), "x");
    assert.equal(remoteLeafAfterPush("local", tree, "z", "y"), "z");
    assert.equal(remoteLeafAfterPush("remote", tree, "z", "y"), undefined);
  });

  it("push skips our hidden leaf markers and what the service just sent; batches stay in order", () => {
    const t = forkedTree();
    t.branch("x");
    const marker = t.markLeaf();
    const plan = planPush(t, 1, new Set(["z"]));
    assert.deepEqual(
      plan.entries.map((e) => e.id),
      ["x", "y"],
    );
    assert.equal(plan.upTo, 5);
    assert.ok(!plan.entries.some((e) => e.id === marker.id));
    const parts = batches(t.getEntries(), 3);
    assert.deepEqual(
      parts.map((p) => p.map((e) => e.id)),
      [["r", "x", "y"], ["z"]],
    );
  });

  it("a leaf marker pi built on goes right before its child, also from before the watermark", () => {
    const t = forkedTree();
    t.branch("y");
    const marker = t.markLeaf();
    const watermark = t.getStoredEntries().length;
    t.load(message("under", marker.id));
    t.load(message("next", "under"));
    // The last sync passed the marker while it was trailing (bookkeeping then); pi built on it since.
    const plan = planPush(t, watermark, new Set());
    assert.deepEqual(
      plan.entries.map((e) => e.id),
      [marker.id, "under", "next"],
    );
    assert.deepEqual(
      planPush(t, 0, new Set(["z"])).entries.map((e) => e.id),
      ["r", "x", "y", marker.id, "under", "next"],
    );
  });

  it("a trailing leaf marker stays local; a marker the service sent is not sent back", () => {
    const t = forkedTree();
    t.branch("x");
    const trailing = t.markLeaf();
    assert.ok(!planPush(t, 0, new Set()).entries.some((e) => e.id === trailing.id));
    const u = forkedTree();
    u.branch("y");
    const marker = u.markLeaf();
    u.load(message("under", marker.id));
    assert.deepEqual(
      planPush(u, 0, new Set(["r", "x", "y", "z", marker.id])).entries.map((e) => e.id),
      ["under"],
    );
  });

  it("batches never end on a leaf marker its child follows", () => {
    const t = forkedTree();
    t.branch("y");
    const marker = t.markLeaf();
    t.load(message("under", marker.id));
    const entries = planPush(t, 0, new Set()).entries;
    assert.deepEqual(
      entries.map((e) => e.id),
      ["r", "x", "y", "z", marker.id, "under"],
    );
    assert.deepEqual(
      batches(entries, 5).map((b) => b.map((e) => e.id)),
      [
        ["r", "x", "y", "z"],
        [marker.id, "under"],
      ],
    );
  });
});
