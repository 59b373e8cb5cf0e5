/**
 * Normal locking keeps the lock through a burst of appends (src/file/burst-lock.ts): from the
 * second write of a synchronous job until the job ends or the lock sat unused for a millisecond,
 * then it is given back, by a watcher thread if the main thread is blocked. Each test fails if
 * that hand-back breaks: a probe finds the lock still held, or a child process waits forever.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { appendFileSync, closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { CustomEntry, SessionEntry } from "../../src/core/entry.js";
import { tryExclusiveLock, unlock } from "../../src/file/flock.js";
import { SessionFile } from "../../src/file/session-file.js";
import { entryMaker } from "../support/messages.js";
import { splitLines, tempDir } from "./support.js";

const APPEND_ONE = fileURLToPath(new URL("./fixtures/append-one.ts", import.meta.url));
const REPO = fileURLToPath(new URL("../..", import.meta.url));
const { dir, cleanup } = tempDir("burst-lock");
const make = entryMaker();
after(cleanup);

let files = 0;
function newSession(): string {
  const path = join(dir, `s${++files}.jsonl`);
  SessionFile.create(path, make.header(), [make.user("root0001", null, "root")]).close();
  return path;
}

function custom(tag: string) {
  return (tree: SessionFile["tree"]) => [
    tree.append<CustomEntry>({ type: "custom", customType: "t", data: { tag } }),
  ];
}

function entriesOnDisk(path: string): SessionEntry[] {
  return splitLines(readFileSync(path))
    .slice(1)
    .map((line) => JSON.parse(line.bytes.toString("utf8")) as SessionEntry);
}

/** Whether a second open file description could take the lock now (flock: same rules as another process). */
function lockIsFree(path: string): boolean {
  const fd = openSync(path, "r+");
  try {
    const free = tryExclusiveLock(fd);
    if (free) unlock(fd);
    return free;
  } finally {
    closeSync(fd);
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

test("one write per job locks only for that write; a burst keeps the lock until the job ends", async () => {
  const path = newSession();
  const file = SessionFile.open(path);
  file.write(custom("single"));
  assert.equal(lockIsFree(path), true, "a lone write gives the lock back at once");
  // The watcher gives an idle lock back after 1–2 ms: a loaded machine can pause this thread that
  // long between a write and the probe, so a burst may be tried a few times.
  let heldOnce = false;
  for (let attempt = 0; attempt < 20 && !heldOnce; attempt++) {
    await Promise.resolve();
    file.write(custom(`burst-${attempt}`));
    file.write(custom(`burst-${attempt}`));
    heldOnce = !lockIsFree(path);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(lockIsFree(path), true, "given back when the job ended");
  }
  assert.ok(heldOnce, "held between the writes of a burst");
  file.close();
  assert.equal(entriesOnDisk(path)[1]?.type, "custom");
  const reopened = SessionFile.open(path);
  assert.deepEqual(reopened.getIssues(), []);
  reopened.close();
});

test("a burst's lock is given back while the main thread is blocked: a child that appends is not deadlocked", () => {
  const path = newSession();
  const file = SessionFile.open(path);
  const [a] = file.write(custom("a"));
  const [b] = file.write(custom("b"));
  // Same job, main thread blocked until the child exits: only the watcher thread can unlock.
  const child = spawnSync(process.execPath, ["--import", "tsx", APPEND_ONE, path, "child"], {
    cwd: REPO,
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(child.status, 0, `the child finished (signal ${child.signal}): ${child.stderr}`);
  const childId = child.stdout.trim();
  const [c] = file.write(custom("c"));
  assert.ok(file.tree.getEntry(childId), "our next write caught up with the child's line");
  assert.notEqual(c?.parentId, childId, "and stayed on its own branch");
  assert.deepEqual(file.getIssues(), []);
  file.close();
  assert.deepEqual(
    entriesOnDisk(path).map((e) => e.id),
    ["root0001", a?.id, b?.id, childId, c?.id],
  );
});

test("a second handle in the same process takes a burst's lock over; both catch up", () => {
  const path = newSession();
  const owner = SessionFile.open(path);
  owner.write(custom("a"));
  const [b] = owner.write(custom("b")); // the burst's lock is now kept
  const other = SessionFile.open(path);
  const [x] = other.write(custom("x")); // would wait for the owner's kept lock forever
  const [c] = owner.write(custom("c"));
  assert.ok(other.tree.getEntry(b?.id as string), "the other handle read the owner's lines");
  assert.ok(owner.tree.getEntry(x?.id as string), "the owner caught up with the other's line");
  assert.equal(c?.parentId, b?.id, "the owner stays on its own branch");
  owner.close();
  other.close();
  const reopened = SessionFile.open(path);
  assert.deepEqual(reopened.getIssues(), []);
  assert.equal(reopened.tree.getEntries().length, 5);
  reopened.close();
});

test("a line written without the lock (pi) during a burst is read within a millisecond of writes", () => {
  const path = newSession();
  const file = SessionFile.open(path);
  const [a] = file.write(custom("a"));
  file.write(custom("b"));
  const pi = make.user("pi000003", a?.id as string, "from pi");
  appendFileSync(path, `${JSON.stringify(pi)}\n`);
  // Keep writing for a few milliseconds, slower than the check interval but faster than the
  // lock's idle release, so at least one write happens under the kept lock after the check expired.
  const start = performance.now();
  let n = 0;
  while (performance.now() - start < 5) {
    file.write(custom(`more-${n++}`));
    sleepSync(0.3);
  }
  assert.ok(file.tree.getEntry("pi000003"), "pi's line was read");
  assert.deepEqual(file.getIssues(), []);
  const ours = file.tree.getEntries().length;
  file.close();
  const reopened = SessionFile.open(path);
  assert.deepEqual(reopened.getIssues(), []);
  assert.equal(reopened.tree.getEntries().length, ours, "the disk holds what memory holds");
  reopened.close();
});

test("a process that ends right after a burst exits (the watcher thread keeps nothing alive)", () => {
  const path = newSession();
  const script = `
    import { SessionFile } from "./src/file/session-file.ts";
    const file = SessionFile.open(${JSON.stringify(path)});
    for (let i = 0; i < 100; i++) file.write((tree) => [tree.append({ type: "custom", customType: "t", data: { i } })]);
  `;
  const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: REPO,
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(run.status, 0, `exited on its own (signal ${run.signal}): ${run.stderr}`);
  assert.equal(entriesOnDisk(path).length, 101);
  assert.equal(lockIsFree(path), true);
});
