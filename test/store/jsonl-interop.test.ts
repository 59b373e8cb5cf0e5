import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { projectContext } from "../../src/core/context.js";
import { JsonlStore } from "../../src/store/jsonl/jsonl-store.js";
import { sessionPath } from "../../src/store/jsonl/jsonl-store-layout.js";
import { chain, make, rejectsWith } from "./conformance/helpers.js";

const root = mkdtempSync(join(tmpdir(), "sessiontree-jsonl-pi-"));
after(() => rmSync(root, { recursive: true, force: true }));

it("pi opens a JSONL store's file at the store's leaf and builds the same context", async () => {
  const store = new JsonlStore({ root });
  await store.init();
  const owner = "pi-compat";
  const { id } = await store.createSession(owner, { cwd: "/work" });
  await store.appendEntries(owner, id, chain("c", 6));
  await store.setLeaf(owner, id, "c-3"); // a rewind with no append after it: a leaf marker
  await store.appendEntries(owner, id, [make.user("side", "c-1", "aside")], { moveLeaf: false });
  const ours = projectContext(await store.readBranch(owner, id));
  await store.close();

  const pi = SessionManager.open(sessionPath(root, owner, id), join(root, "pi-sessions"));
  assert.equal(pi.getSessionId(), id);
  assert.deepEqual(pi.buildSessionContext().messages, ours.messages);
  assert.equal(ours.messages.length, 4);

  // And our store reopens at the same leaf pi sees.
  const again = new JsonlStore({ root });
  await again.init();
  assert.equal((await again.getSummary(owner, id)).leafId, "c-3");
  await again.appendEntries(owner, id, [make.assistant("c-4b", "c-3", "new way")]);
  assert.deepEqual(
    (await again.readBranch(owner, id)).map((e) => e.id),
    ["c-0", "c-1", "c-2", "c-3", "c-4b"],
  );
  await again.close();
});

it("sees lines pi appended behind its back as a new revision, and refuses a stale expected revision", async () => {
  const store = new JsonlStore({ root });
  await store.init();
  const owner = "pi-writes";
  const { id } = await store.createSession(owner, { cwd: "/work" });
  const before = await store.appendEntries(owner, id, chain("p", 2));

  const pi = SessionManager.open(sessionPath(root, owner, id), join(root, "pi-sessions"));
  const piId = pi.appendCustomEntry("pi-extension", { n: 1 });

  const summary = await store.getSummary(owner, id);
  assert.ok(summary.revision > before.revision, "an outside write is a new revision");
  assert.equal(summary.leafId, piId);
  assert.equal(summary.entryCount, 3);
  await rejectsWith(
    store.appendEntries(owner, id, [make.user("late", "p-1", "late")], {
      expectedRevision: before.revision,
    }),
    "conflict",
  );
  const ok = await store.appendEntries(owner, id, [make.user("next", piId, "after pi")], {
    expectedRevision: summary.revision,
  });
  assert.equal(ok.revision, summary.revision + 1);
  await store.close();
});

it("two store instances on one root see each other's writes, leaf and revision included", async () => {
  const [a, b] = [new JsonlStore({ root }), new JsonlStore({ root })];
  await a.init();
  await b.init();
  const owner = "two-instances";
  const { id } = await a.createSession(owner);
  await a.appendEntries(owner, id, chain("x", 3));
  assert.equal((await b.getSummary(owner, id)).leafId, "x-2"); // b opens (and caches) the file
  const fromB = await b.appendEntries(owner, id, [make.user("y", "x-2", "from b")], {
    expectedRevision: 2,
  });
  assert.equal(fromB.revision, 3);
  const seenByA = await a.getSummary(owner, id);
  assert.equal(seenByA.leafId, "y");
  assert.equal(seenByA.revision, 3);
  await rejectsWith(a.setLeaf(owner, id, "x-0", { expectedRevision: 2 }), "conflict");
  assert.equal((await a.setLeaf(owner, id, "x-0", { expectedRevision: 3 })).revision, 4);
  assert.equal((await b.getSummary(owner, id)).leafId, "x-0");
  await a.close();
  await b.close();
});
