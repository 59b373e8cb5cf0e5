import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import type { CustomEntry } from "../../src/core/entry.js";
import { isSessionTreeError } from "../../src/core/errors.js";
import { SessionFile } from "../../src/file/session-file.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { entryMaker } from "../support/messages.js";
import { tempDir } from "./support.js";

const { dir, cleanup } = tempDir("failed-append");
const make = entryMaker();
after(cleanup);

test("an append that cannot be written leaves no phantom entry: the next append's parent is on disk", () => {
  const manager = SessionManager.create("/tmp/project", dir);
  const first = manager.appendMessage({ role: "user", content: "kept", timestamp: 1 });
  // A BigInt cannot be written as JSON: the append must fail typed, and change nothing.
  assert.throws(
    () => manager.appendCustomEntry("state", { count: 1n }),
    (error) => isSessionTreeError(error, "invalid_entry"),
  );
  assert.equal(manager.getLeafId(), first, "the leaf did not move");
  assert.deepEqual(
    manager.getEntries().map((e) => e.id),
    [first],
    "no entry that is not on disk",
  );
  const second = manager.appendMessage({ role: "user", content: "next", timestamp: 2 });
  assert.equal(manager.getEntry(second)?.parentId, first);
  manager.close();
  const reopened = SessionFile.open(manager.getSessionFile() as string);
  assert.deepEqual(reopened.getIssues(), [], "no dangling parent on disk");
  reopened.close();
});

test("group commit: a batch whose build throws writes nothing and keeps nothing in memory", async () => {
  const path = join(dir, "group.jsonl");
  SessionFile.create(path, make.header(), [make.user("g1", null, "root")]).close();
  const file = SessionFile.open(path);
  const good = file.appendAsync((tree) => [tree.append<CustomEntry>({ type: "custom", customType: "ok" })]);
  const bad = file.appendAsync(() => {
    throw new Error("caller bug");
  });
  await assert.rejects(bad);
  // The good append shared the failed batch: it is rejected too (not acknowledged), never half-kept.
  const outcome = await good.then(
    () => "resolved",
    () => "rejected",
  );
  const entries = file.tree.getStoredEntries().map((e) => e.id);
  const [next] = await file.appendAsync((tree) => [
    tree.append<CustomEntry>({ type: "custom", customType: "after" }),
  ]);
  file.close();
  const reopened = SessionFile.open(path);
  assert.deepEqual(reopened.getIssues(), [], "no dangling parent on disk");
  if (outcome === "rejected")
    assert.deepEqual(entries, ["g1"], "nothing of the failed batch stays in memory");
  assert.equal(
    reopened.tree.getEntry(next?.id as string)?.parentId,
    outcome === "rejected" ? "g1" : entries[1],
  );
  reopened.close();
});
