import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { appendFileSync, closeSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, afterEach, beforeEach, test } from "node:test";
import type { CustomEntry, SessionEntry } from "../../src/core/entry.js";
import { isSessionTreeError } from "../../src/core/errors.js";
import { withExclusiveLock } from "../../src/file/flock.js";
import { repairFile } from "../../src/file/repair.js";
import { replaceKeepingBackup } from "../../src/file/rewrite.js";
import { appendChecks } from "../../src/file/session-append.js";
import { SessionFile } from "../../src/file/session-file.js";
import { encodeLine } from "../../src/format/jsonl/encode.js";
import { splitLines, tempDir } from "../durability/support.js";
import { entryMaker } from "../support/messages.js";

// What a normal-mode writer sees under the lock before each append: the size of the file it holds
// (lseek), and a look at the path only when that size is not the one it left, when it waited for
// the lock, or when the last look is older than `appendChecks.pathHoldsMs`. These tests turn the
// age rule off (unless they say otherwise), so each shows that the other signals are enough.

const { dir, cleanup } = tempDir("append-detection");
const make = entryMaker();
after(cleanup);
const defaultHold = appendChecks.pathHoldsMs;
beforeEach(() => {
  appendChecks.pathHoldsMs = Number.POSITIVE_INFINITY;
});
afterEach(() => {
  appendChecks.pathHoldsMs = defaultHold;
});

let files = 0;
function newSession(extraLines = ""): string {
  const path = join(dir, `s${++files}.jsonl`);
  SessionFile.create(path, make.header(), [make.user("root0001", null, "root")]).close();
  if (extraLines) appendFileSync(path, extraLines);
  return path;
}

function custom(tag: string) {
  return (tree: SessionFile["tree"]) => [
    tree.append<CustomEntry>({ type: "custom", customType: "t", data: { tag } }),
  ];
}

function idsOnDisk(path: string): string[] {
  return splitLines(readFileSync(path))
    .slice(1)
    .map((line) => (JSON.parse(line.bytes.toString("utf8")) as SessionEntry).id);
}

test("a repair that replaces the file between two appends: the second lands in the new file", () => {
  // The age rule on, as by default: the repair holds the lock longer than a look at the path holds.
  appendChecks.pathHoldsMs = defaultHold;
  // A damaged line, so that the repair has something to change and renames a new file in.
  const path = newSession('{"type":"message","id":"broken\n');
  const file = SessionFile.open(path);
  const [a] = file.write(custom("a"));
  const inodeBefore = statSync(path).ino;

  const report = repairFile(path);
  assert.equal(report.changed, true);
  assert.notEqual(statSync(path).ino, inodeBefore, "the repair renamed a new file in");
  assert.equal(
    statSync(report.backupPath as string).ino,
    inodeBefore,
    "the backup is the original file itself (a hard link): whatever anyone wrote to it stays on disk",
  );

  const [b] = file.write(custom("b"));
  file.close();
  assert.equal(b?.parentId, a?.id, "the writer kept its place in the conversation");
  assert.deepEqual(idsOnDisk(path), ["root0001", a?.id, b?.id], "the append is in the file the path names");
  const backup = readFileSync(report.backupPath as string, "utf8");
  assert.ok(!backup.includes(b?.id as string), "nothing was written into the backup");
  assert.ok(backup.includes('"id":"broken\n'), "the backup keeps the damaged original");
});

test("a writer that waited for the lock asks the path: a file replaced meanwhile is re-read", async () => {
  const path = newSession();
  const file = SessionFile.open(path);
  const [a] = file.write(custom("a"));
  // Another process takes the lock, renames a copy of the file in (as a repair does) and holds on.
  // (Not a worker thread: fs-ext's module init, run again in a worker, resets static V8 handles of
  // the main thread's isolate.)
  const holder = spawn(
    process.execPath,
    [
      "-e",
      `const fs = require("node:fs");
       const fsExt = require(process.argv[1]);
       const path = process.argv[2];
       const fd = fs.openSync(path, "r+");
       fsExt.flockSync(fd, "ex");
       fs.writeFileSync(path + ".new", fs.readFileSync(path));
       fs.renameSync(path + ".new", path);
       process.stdout.write("replaced");
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
       fsExt.flockSync(fd, "un");
       fs.closeSync(fd);`,
      createRequire(import.meta.url).resolve("fs-ext"),
      path,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await once(holder.stdout, "data");
  const replaced = statSync(path).ino;
  const [b] = file.write(custom("b")); // waits for the holder: the age rule is off (beforeEach)
  file.close();
  await once(holder, "exit");
  assert.equal(statSync(path).ino, replaced);
  assert.deepEqual(idsOnDisk(path), ["root0001", a?.id, b?.id], "the append is in the file the path names");
});

test("a line a writer without a lock (pi) appended between two appends is read before the next", () => {
  const path = newSession();
  const file = SessionFile.open(path);
  const [a] = file.write(custom("a"));
  appendFileSync(path, encodeLine(make.user("pi000001", a?.id as string, "from pi")));
  const [b] = file.write(custom("b"));
  file.close();
  assert.ok(file.tree.getEntry("pi000001"), "pi's line joined the tree");
  assert.equal(b?.parentId, a?.id, "our path stays ours");
  assert.deepEqual(idsOnDisk(path), ["root0001", a?.id, "pi000001", b?.id]);
});

test("another locking writer's appends are caught up, a torn line is moved aside", () => {
  const path = newSession();
  const ours = SessionFile.open(path);
  const theirs = SessionFile.open(path);
  const [a] = ours.write(custom("a"));
  const [t] = theirs.write(custom("t"));
  appendFileSync(path, '{"type":"message","id":"torn');
  const [b] = ours.write(custom("b"));
  assert.ok(ours.tree.getEntry(t?.id as string), "the other writer's entry was read");
  assert.ok(
    ours.getIssues().some((issue) => issue.code === "torn_tail"),
    "the torn line was moved aside",
  );
  ours.close();
  theirs.close();
  assert.deepEqual(idsOnDisk(path), ["root0001", a?.id, t?.id, b?.id]);
});

test("a file removed without the lock is seen once the last look at the path is old enough", () => {
  appendChecks.pathHoldsMs = 1;
  const path = newSession();
  const file = SessionFile.open(path);
  file.write(custom("a"));
  rmSync(path);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
  assert.throws(
    () => file.write(custom("b")),
    (error) => isSessionTreeError(error, "session_not_found"),
  );
  file.close();
});

test("a repair keeps the lock longer than a writer trusts its last look at the path", () => {
  appendChecks.pathHoldsMs = 40;
  const path = newSession();
  const fd = openSync(path, "r");
  try {
    const started = performance.now();
    // Under the file's lock, as repair and migrate call it.
    withExclusiveLock(fd, () => replaceKeepingBackup(path, readFileSync(path), "bak-test"));
    const held = performance.now() - started;
    assert.ok(held >= 2 * appendChecks.pathHoldsMs, `held ${held.toFixed(1)} ms`);
  } finally {
    closeSync(fd);
  }
});
