import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, readFileSync, rmSync, truncateSync } from "node:fs";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { CustomEntry } from "../../src/core/entry.js";
import { isSessionTreeError } from "../../src/core/errors.js";
import { SessionFile } from "../../src/file/session-file.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { custom, entriesOnDisk, lockTestSessions, tempDir } from "./support.js";

const APPEND_ONE = fileURLToPath(new URL("./fixtures/append-one.ts", import.meta.url));
const CROSS_WRITER = fileURLToPath(new URL("./fixtures/cross-writer.ts", import.meta.url));
const REPO = fileURLToPath(new URL("../..", import.meta.url));
const { dir, cleanup } = tempDir("locking-mode");
const { newSession, make } = lockTestSessions(dir);
after(cleanup);

/** Whether another process could take the file's lock right now (it only tries, never waits). */
function lockIsFreeForOthers(path: string): boolean {
  const probe = `
    const fd = require("node:fs").openSync(${JSON.stringify(path)}, "r+");
    try { require("fs-ext").flockSync(fd, "exnb"); process.stdout.write("free"); }
    catch (e) { process.stdout.write(e.code); }`;
  const result = spawnSync(process.execPath, ["-e", probe], { cwd: REPO, encoding: "utf8" });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout === "free";
}

test("normal locking: the lock is held only during a write", () => {
  const path = newSession();
  const file = SessionFile.open(path);
  file.write(custom("a"));
  assert.equal(lockIsFreeForOthers(path), true);
  file.close();
});

test("exclusive locking: the lock is kept from the first write until close()", () => {
  const path = newSession();
  const file = SessionFile.open(path, { locking: "exclusive" });
  assert.equal(lockIsFreeForOthers(path), true, "nothing is locked before the first write");
  file.write(custom("a"));
  file.write(custom("b"));
  assert.equal(lockIsFreeForOthers(path), false, "held between writes");
  file.close();
  assert.equal(lockIsFreeForOthers(path), true, "released by close()");
  assert.deepEqual(
    entriesOnDisk(path).map((e) => (e as CustomEntry).data),
    [undefined, { tag: "a" }, { tag: "b" }],
  );
});

test("exclusive locking: a writer in another process waits until close(), then appends after our lines", async () => {
  const path = newSession();
  const file = SessionFile.open(path, { locking: "exclusive" });
  const [first] = file.write(custom("ours-1"));
  const child = spawn(process.execPath, ["--import", "tsx", APPEND_ONE, path, "child"], {
    cwd: REPO,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let childOut = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    childOut += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  // Long enough for the child to start and reach the lock; it must not get past it.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  file.write(custom("ours-2"));
  assert.equal(childOut, "", "the child is still waiting for the lock");
  assert.equal(entriesOnDisk(path).length, 3, "only our lines are on disk");
  file.close();
  assert.equal(await exited, 0);
  const onDisk = entriesOnDisk(path);
  assert.equal(onDisk.length, 4);
  const childEntry = onDisk[3] as CustomEntry;
  assert.equal(childEntry.id, childOut.trim());
  assert.equal(childEntry.customType, "child");
  assert.notEqual(childEntry.id, first?.id);
});

test("exclusive locking: a second handle in the same process is not deadlocked; both catch up", () => {
  const path = newSession();
  const owner = SessionFile.open(path, { locking: "exclusive" });
  const [a] = owner.write(custom("a"));
  const other = SessionFile.open(path);
  const [b] = other.write(custom("b")); // would wait forever for the owner's kept lock
  assert.equal(other.tree.getEntry(a?.id as string)?.id, a?.id, "the other handle read the owner's line");
  const [c] = owner.write(custom("c"));
  assert.ok(owner.tree.getEntry(b?.id as string), "the owner caught up with the other handle's line");
  assert.equal(c?.parentId, a?.id, "the owner stays on its own branch");
  assert.deepEqual(owner.getIssues(), []);
  owner.close();
  other.close();
  assert.deepEqual(
    entriesOnDisk(path).map((e) => e.id),
    ["root0001", a?.id, b?.id, c?.id],
  );
});

test("a line a non-locking writer (pi) slipped in before our last write is found on the next write", () => {
  const path = newSession();
  const file = SessionFile.open(path);
  const [ours] = file.write(custom("ours"));
  // What the disk looks like when pi's appendFileSync landed between our lock and our write:
  // its line first, then ours. Our idea of where our line ends is now wrong.
  const lines = readFileSync(path, "utf8").split("\n").filter(Boolean);
  const ourLine = lines.pop() as string;
  truncateSync(path, Buffer.byteLength(`${lines.join("\n")}\n`));
  const pi = make.user("pi000001", "root0001", "from pi");
  appendFileSync(path, `${JSON.stringify(pi)}\n${ourLine}\n`);

  const [next] = file.write(custom("next"));
  assert.equal(next?.parentId, ours?.id);
  assert.ok(file.tree.getEntry("pi000001"), "pi's line was read");
  assert.deepEqual(file.getIssues(), [], "no garbage read from the middle of a line, nothing moved aside");
  file.close();
  assert.deepEqual(
    entriesOnDisk(path).map((e) => e.id),
    ["root0001", "pi000001", ours?.id, next?.id],
  );
  const reopened = SessionFile.open(path);
  assert.deepEqual(reopened.getIssues(), []);
  reopened.close();
});

test("SessionManager passes the locking mode on: exclusive keeps the lock until close(), then the file reads back whole", () => {
  const manager = SessionManager.create("/tmp/project", dir, { locking: "exclusive" });
  const first = manager.appendMessage({ role: "user", content: "one", timestamp: 1 });
  manager.appendMessage({ role: "user", content: "two", timestamp: 2 });
  manager.branch(first); // the leaf marker goes out under the kept lock too
  const path = manager.getSessionFile() as string;
  assert.equal(lockIsFreeForOthers(path), false);
  manager.close();
  assert.equal(lockIsFreeForOthers(path), true);
  const reopened = SessionManager.open(path, dir);
  assert.equal(reopened.getLeafId(), first);
  assert.equal(reopened.getEntries().length, 2);
  reopened.close();
});

/** Longer than a burst trusts a check of a kept lock's file (1 ms). */
function pause(): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
}

test("exclusive locking: what others do without the lock is still seen (pi's line, a torn line, the file removed)", () => {
  const path = newSession();
  const file = SessionFile.open(path, { locking: "exclusive" });
  const [a] = file.write(custom("a"));
  const pi = make.user("pi000002", a?.id as string, "from pi");
  appendFileSync(path, `${JSON.stringify(pi)}\n`);
  pause();
  const [b] = file.write(custom("b"));
  assert.ok(file.tree.getEntry("pi000002"), "pi's line was read before writing");
  assert.equal(b?.parentId, a?.id);
  appendFileSync(path, '{"type":"message","id":"torn');
  pause();
  const [c] = file.write(custom("c"));
  assert.ok(
    file.getIssues().some((issue) => issue.code === "torn_tail"),
    "the torn line was moved aside",
  );
  assert.deepEqual(
    entriesOnDisk(path).map((e) => e.id),
    ["root0001", a?.id, "pi000002", b?.id, c?.id],
  );
  rmSync(path);
  pause();
  assert.throws(
    () => file.write(custom("d")),
    (error) => isSessionTreeError(error, "session_not_found"),
  );
  file.close();
});

test("close() writes appends still queued, then lets the kept lock go", async () => {
  const path = newSession();
  const file = SessionFile.open(path, { locking: "exclusive" });
  const queued = file.appendAsync(custom("queued"));
  file.close();
  const [entry] = await queued;
  assert.equal(lockIsFreeForOthers(path), true);
  assert.equal(entriesOnDisk(path).at(-1)?.id, entry?.id);
});

test("exclusive locking: two processes that each keep a lock and write to the other's session both get through", async () => {
  const [first, second] = [newSession(), newSession()];
  const children = [
    [first, second],
    [second, first],
  ].map(([mine, theirs]) =>
    spawn(process.execPath, ["--import", "tsx", CROSS_WRITER, mine as string, theirs as string], {
      cwd: REPO,
      stdio: ["pipe", "pipe", "inherit"],
    }),
  );
  const said = (child: (typeof children)[number], word: string) =>
    new Promise<void>((resolve) => {
      let out = "";
      child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
        if (out.includes(word)) resolve();
      });
    });
  await Promise.all(children.map((child) => said(child, "holding")));
  const done = Promise.all(children.map((child) => said(child, "done")));
  for (const child of children) child.stdin?.write("go\n");
  const outcome = await Promise.race([
    done.then(() => "both done"),
    new Promise((resolve) => setTimeout(() => resolve("stuck"), 20_000)),
  ]);
  for (const child of children) child.kill("SIGKILL");
  assert.equal(outcome, "both done");
  for (const path of [first, second]) {
    assert.deepEqual(
      entriesOnDisk(path).map((e) => (e as CustomEntry).customType),
      [undefined, "own", "cross"],
    );
  }
});
