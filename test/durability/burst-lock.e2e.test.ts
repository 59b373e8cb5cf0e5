/**
 * Normal locking keeps the lock through a burst of appends (src/file/burst-lock.ts): from the
 * second write of a synchronous job until the job ends or the lock sat unused for a millisecond,
 * then it is given back, by a watcher thread if the main thread is blocked. Each test fails if
 * that hand-back breaks: a probe finds the lock still held, or a child process waits forever.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { appendFileSync, closeSync, openSync, renameSync, symlinkSync, unlinkSync } from "node:fs";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { CustomEntry } from "../../src/core/entry.js";
import { tryExclusiveLock, unlock } from "../../src/file/flock.js";
import { SessionFile } from "../../src/file/session-file.js";
import { custom, entriesOnDisk, lockTestSessions, tempDir } from "./support.js";

const APPEND_ONE = fileURLToPath(new URL("./fixtures/append-one.ts", import.meta.url));
const REPO = fileURLToPath(new URL("../..", import.meta.url));
const { dir, cleanup } = tempDir("burst-lock");
const { newSession, make } = lockTestSessions(dir);
after(cleanup);

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

/**
 * Waits until bursts keep their lock in this process: nothing is lent before the watcher thread
 * runs, tens of milliseconds after the first burst. Ends with no lock kept.
 */
async function watcherRunning(): Promise<void> {
  const path = newSession();
  const file = SessionFile.open(path);
  try {
    for (let attempt = 0; attempt < 200; attempt++) {
      file.write(custom("warm-up"));
      file.write(custom("warm-up"));
      const held = !lockIsFree(path);
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (held) return;
    }
    assert.fail("no burst kept its lock in 2 s");
  } finally {
    file.close();
  }
}

test("one write per job locks only for that write; a burst keeps the lock until the job ends", async () => {
  const path = newSession();
  const file = SessionFile.open(path);
  file.write(custom("single"));
  assert.equal(lockIsFree(path), true, "a lone write gives the lock back at once");
  // Nothing is lent before the watcher thread runs (tens of ms after the first burst), and it gives
  // an idle lock back after a millisecond, which a loaded machine can pause this thread for between
  // a write and the probe: so bursts are tried until one is seen holding the lock.
  let heldOnce = false;
  for (let attempt = 0; attempt < 100 && !heldOnce; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
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

test("a burst's lock is given back while the main thread is blocked: a child that appends is not deadlocked", async () => {
  await watcherRunning();
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

test("a second handle in the same process takes a burst's lock over; both catch up", async () => {
  await watcherRunning();
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

test("a line written without the lock (pi) during a burst is read within a millisecond of writes", async () => {
  await watcherRunning();
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
  // At least ten writes 0.3 ms apart: a thread paused past the 5 ms still spans a check.
  do {
    file.write(custom(`more-${n++}`));
    sleepSync(0.3);
  } while (n < 10 || performance.now() - start < 5);
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

test("a lock wait inside a write's builder lets a kept lock go only after that write (both modes)", async () => {
  await watcherRunning();
  for (const locking of ["normal", "exclusive"] as const) {
    const [a, b] = [newSession(), newSession()];
    const bOwner = SessionFile.open(b);
    const bOther = SessionFile.open(b);
    const file = SessionFile.open(a, { locking });
    bOwner.write(custom("b-1"));
    bOwner.write(custom("b-2")); // b's lock is now kept by bOwner
    file.write(custom("a-1"));
    file.write(custom("a-2")); // a's lock is now kept
    let heldDuringWrite = false;
    file.write((tree) => {
      bOther.write(custom("nested")); // waits for bOwner: every kept lock of the process is given up first
      heldDuringWrite = !lockIsFree(a);
      return custom("a-3")(tree);
    });
    assert.ok(heldDuringWrite, `${locking}: a's write still held its lock after the nested wait`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (locking === "normal") assert.equal(lockIsFree(a), true, "and let it go after that write");
    for (const handle of [file, bOwner, bOther]) handle.close();
    assert.equal(lockIsFree(a), true);
    assert.equal(entriesOnDisk(a).length, 4);
  }
});

test("a check of the file that throws under a burst's lock gives the lock back", async () => {
  await watcherRunning();
  const path = newSession();
  const file = SessionFile.open(path);
  file.write(custom("a"));
  file.write(custom("b")); // kept: the next check is due in a millisecond
  sleepSync(1.5);
  renameSync(path, `${path}.aside`);
  symlinkSync(path, path); // the path names itself: stat fails with ELOOP, not ENOENT
  try {
    assert.throws(() => file.write(custom("during")), /ELOOP/);
  } finally {
    unlinkSync(path);
    renameSync(`${path}.aside`, path);
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(lockIsFree(path), true, "nothing keeps the lock after the job");
  file.write(custom("after"));
  file.close();
  assert.deepEqual(
    entriesOnDisk(path).map((e) => ((e as CustomEntry).data as { tag?: string } | undefined)?.tag),
    [undefined, "a", "b", "after"],
  );
});

test("bursts on two files in one job each keep their lock", async () => {
  await watcherRunning();
  const [a, b] = [newSession(), newSession()];
  const files = [SessionFile.open(a), SessionFile.open(b)];
  let bothHeld = 0;
  const attempts = 20;
  for (let attempt = 0; attempt < attempts; attempt++) {
    for (let i = 0; i < 20; i++) for (const file of files) file.write(custom(`${attempt}-${i}`));
    if (!lockIsFree(a) && !lockIsFree(b)) bothHeld++;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  for (const file of files) file.close();
  // A lend wakes the watcher; idleness judged by its looks rather than by time released the other
  // file's lock at once, nearly every time.
  assert.ok(bothHeld >= attempts / 2, `both locks kept in ${bothHeld} of ${attempts} bursts`);
});
