import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { StoreHandle, StoreHistory } from "../../src/adapters/history/store-history.js";
import type { SessionEntry } from "../../src/core/entry.js";
import { MemoryStore } from "../../src/store/memory/memory-store.js";
import type { BranchSince, SessionStore } from "../../src/store/store.js";
import { entryMaker } from "../support/messages.js";

const make = entryMaker();
const OWNER = "o";
const ids = (entries: readonly SessionEntry[]) => entries.map((entry) => entry.id);

/** A memory store whose `readBranchSince` answers are recorded, to see what each view read. */
async function spiedStore() {
  const store = new MemoryStore();
  await store.init();
  const reads: Array<{ knownId: string | null; read: BranchSince }> = [];
  const since = store.readBranchSince.bind(store);
  store.readBranchSince = async (owner, sessionId, knownId, leafId, options) => {
    const read = await since(owner, sessionId, knownId, leafId, options);
    reads.push({ knownId, read });
    return read;
  };
  const pages: Array<{ after: number; entries: SessionEntry[] }> = [];
  const page = store.readEntries.bind(store);
  store.readEntries = async (owner, sessionId, options) => {
    const read = await page(owner, sessionId, options);
    pages.push({ after: options?.after ?? 0, entries: read.entries });
    return read;
  };
  return { store, reads, pages };
}

async function historyOver(store: SessionStore, handle = new StoreHandle(store)) {
  const history = new StoreHistory(handle, OWNER, "s");
  await history.sessionId(); // created
  return { history, handle };
}

describe("StoreHistory views", () => {
  test("a view after a turn reads only the turn's entries from the store", async () => {
    const { store, reads } = await spiedStore();
    const { history } = await historyOver(store);
    await store.appendEntries(OWNER, "s", [make.user("u1", null, "one"), make.assistant("a1", "u1", "1")]);
    assert.deepEqual(ids((await history.view()).path), ["u1", "a1"]);
    await store.appendEntries(OWNER, "s", [make.user("u2", "a1", "two"), make.assistant("a2", "u2", "2")]);
    const view = await history.view();
    assert.deepEqual(ids(view.path), ["u1", "a1", "u2", "a2"]);
    assert.deepEqual(view.path, await store.readBranch(OWNER, "s"));
    const summary = await store.getSummary(OWNER, "s");
    assert.deepEqual([view.leafId, view.revision], [summary.leafId, summary.revision]);
    const last = reads.at(-1);
    assert.equal(last?.knownId, "a1");
    assert.deepEqual(ids(last?.read.entries ?? []), ["u2", "a2"]);
    // Nothing new: nothing read but the answer that nothing changed.
    assert.deepEqual(ids((await history.view()).path), ids(view.path));
    assert.deepEqual(reads.at(-1)?.read.entries, []);
  });

  test("a rewind or another branch is read whole, and the view is the store's path", async () => {
    const { store } = await spiedStore();
    const { history } = await historyOver(store);
    await store.appendEntries(OWNER, "s", [
      make.user("u1", null, "one"),
      make.assistant("a1", "u1", "1"),
      make.user("u2", "a1", "two"),
      make.user("v2", "a1", "two again"),
    ]);
    assert.deepEqual(ids((await history.view()).path), ["u1", "a1", "v2"]);
    await store.setLeaf(OWNER, "s", "u2");
    assert.deepEqual(ids((await history.view()).path), ["u1", "a1", "u2"]);
    await store.setLeaf(OWNER, "s", "u1");
    assert.deepEqual(ids((await history.view()).path), ["u1"]);
    await store.setLeaf(OWNER, "s", null);
    assert.deepEqual((await history.view()).path, []);
    await store.setLeaf(OWNER, "s", "v2");
    assert.deepEqual(ids((await history.view()).path), ["u1", "a1", "v2"]);
  });

  test("a view's path is the caller's to change; the entries it shares are frozen", async () => {
    const { store } = await spiedStore();
    const { history } = await historyOver(store);
    await store.appendEntries(OWNER, "s", [make.user("u1", null, "one"), make.assistant("a1", "u1", "1")]);
    const first = await history.view();
    first.path.length = 0;
    const second = await history.view();
    assert.deepEqual(ids(second.path), ["u1", "a1"]);
    assert.notEqual(first.path, second.path);
    assert.throws(() => {
      (second.path[0] as { parentId: string | null }).parentId = "changed";
    }, TypeError);
    assert.ok(Object.isFrozen((second.path[1] as { message: object }).message));
  });

  test("histories of one handle share the last view (a chat store makes one per call)", async () => {
    const { store, reads } = await spiedStore();
    const handle = new StoreHandle(store);
    const { history: one } = await historyOver(store, handle);
    await store.appendEntries(OWNER, "s", [make.user("u1", null, "one")]);
    await one.view();
    await store.appendEntries(OWNER, "s", [make.assistant("a1", "u1", "1")]);
    const { history: two } = await historyOver(store, handle);
    assert.deepEqual(ids((await two.view()).path), ["u1", "a1"]);
    assert.deepEqual(ids(reads.at(-1)?.read.entries ?? []), ["a1"]);
  });

  test("a session purged and created again is read whole, even where the kept leaf's id is in it", async () => {
    const { store } = await spiedStore();
    const { history } = await historyOver(store);
    for (const [id, parent] of [
      ["x1", null],
      ["x2", "x1"],
      ["x3", "x2"],
    ] as const) {
      await store.appendEntries(OWNER, "s", [make.user(id, parent, id)]);
    }
    assert.deepEqual(ids((await history.view()).path), ["x1", "x2", "x3"]);
    await store.purgeSession(OWNER, "s");
    await store.createSession(OWNER, { id: "s" });
    await store.appendEntries(OWNER, "s", [make.user("n1", null, "new"), make.user("x3", "n1", "x3 again")]);
    assert.deepEqual(ids((await history.view()).path), ["n1", "x3"]);
  });

  test("a deleted session reads as empty, and whole again once restored", async () => {
    const { store } = await spiedStore();
    const { history } = await historyOver(store);
    await store.appendEntries(OWNER, "s", [make.user("u1", null, "one"), make.assistant("a1", "u1", "1")]);
    await history.view();
    await store.deleteSession(OWNER, "s");
    assert.deepEqual(await history.view(), { leafId: null, path: [] });
    await store.restoreSession(OWNER, "s");
    assert.deepEqual(ids((await history.view()).path), ["u1", "a1"]);
  });

  test("every entry: read whole once, then only what was stored since", async () => {
    const { store, pages } = await spiedStore();
    const { history } = await historyOver(store);
    assert.deepEqual(await history.entries(), []);
    await store.appendEntries(OWNER, "s", [make.user("u1", null, "one"), make.assistant("a1", "u1", "1")]);
    assert.deepEqual(ids(await history.entries()), ["u1", "a1"]);
    await store.appendEntries(OWNER, "s", [make.user("v1", null, "another root")]);
    const all = await history.entries();
    assert.deepEqual(all, (await store.loadSession(OWNER, "s")).entries);
    // The last read started at the last entry it had (to check the positions), and read one more.
    assert.deepEqual([pages.at(-1)?.after, ids(pages.at(-1)?.entries ?? [])], [1, ["a1", "v1"]]);
    all.length = 0;
    assert.equal((await history.entries()).length, 3, "the caller's array is its own");
    assert.ok(Object.isFrozen((await history.entries())[0]));
  });

  test("every entry of a session purged and created again is read whole", async () => {
    const { store } = await spiedStore();
    const { history } = await historyOver(store);
    await store.appendEntries(OWNER, "s", [make.user("x1", null, "x1"), make.user("x2", "x1", "x2")]);
    assert.deepEqual(ids(await history.entries()), ["x1", "x2"]);
    await store.purgeSession(OWNER, "s");
    await store.createSession(OWNER, { id: "s" });
    await store.appendEntries(OWNER, "s", [make.user("n1", null, "n1"), make.user("n2", "n1", "n2")]);
    await store.appendEntries(OWNER, "s", [make.user("n3", "n2", "n3")]);
    assert.deepEqual(ids(await history.entries()), ["n1", "n2", "n3"]);
    await store.deleteSession(OWNER, "s");
    assert.deepEqual(await history.entries(), []);
  });
});
