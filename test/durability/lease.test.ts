import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { isSessionTreeError, type SessionTreeError } from "../../src/core/errors.js";
import { WriterLease } from "../../src/file/lease.js";
import { SessionFile } from "../../src/file/session-file.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { entryMaker } from "../support/messages.js";
import { tempDir } from "./support.js";

const HOLDER = fileURLToPath(new URL("./fixtures/lease-child.ts", import.meta.url));
const { dir, cleanup } = tempDir("lease");
const make = entryMaker();
after(cleanup);

/** A process that takes the lease and keeps it until killed. */
async function startHolder(session: string): Promise<{ child: ChildProcess; pid: number }> {
  const child = spawn(process.execPath, ["--import", "tsx", HOLDER, session], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const pid = await new Promise<number>((resolve, reject) => {
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (text: string) => {
      const match = /held (\d+)/.exec(text);
      if (match) resolve(Number(match[1]));
    });
    child.on("close", (code) => reject(new Error(`lease holder exited early (${code})`)));
  });
  return { child, pid };
}

function leaseError(fn: () => unknown): SessionTreeError {
  try {
    fn();
  } catch (error) {
    assert.ok(isSessionTreeError(error, "lease_held"), `expected lease_held, got ${String(error)}`);
    return error;
  }
  assert.fail("the second owner got the lease");
}

test("a live holder in another process: the second opener gets LeaseHeldError naming it", async () => {
  const session = join(dir, "live.jsonl");
  const { child, pid } = await startHolder(session);
  try {
    const error = leaseError(() => WriterLease.acquire(session));
    const holder = error.details.holder as { pid: number; host: string; startedAt: string };
    assert.equal(holder.pid, pid);
    assert.equal(holder.host, hostname());
    assert.ok(!Number.isNaN(Date.parse(holder.startedAt)));
  } finally {
    child.kill("SIGKILL");
  }
});

test("a SIGKILLed holder's lease is taken over at once, and the new holder is recorded", async () => {
  const session = join(dir, "killed.jsonl");
  const { child, pid } = await startHolder(session);
  leaseError(() => WriterLease.acquire(session));
  const closed = new Promise((resolve) => child.on("close", resolve));
  child.kill("SIGKILL");
  await closed;
  assert.ok(existsSync(WriterLease.leasePath(session)), "a holder that died leaves its record");
  const started = performance.now();
  const lease = WriterLease.acquire(session);
  const tookMs = performance.now() - started;
  try {
    assert.equal(lease.tookOverFrom?.pid, pid, "the report names the dead holder");
    assert.equal(WriterLease.inspect(session)?.pid, process.pid);
    assert.ok(tookMs < 1000, `take-over took ${tookMs} ms`);
  } finally {
    lease.release();
  }
});

test("within one process a second acquire is refused too, and a released lease can be taken again", () => {
  const session = join(dir, "same.jsonl");
  const first = WriterLease.acquire(session);
  leaseError(() => WriterLease.acquire(session));
  first.release();
  first.release();
  const second = WriterLease.acquire(session);
  assert.equal(second.tookOverFrom, null, "a clean release is not a take-over");
  second.release();
});

test("a clean release deletes the lease file: nothing is left beside the session", () => {
  const session = join(dir, "clean.jsonl");
  const lease = WriterLease.acquire(session);
  assert.ok(existsSync(WriterLease.leasePath(session)));
  assert.equal(WriterLease.inspect(session)?.pid, process.pid);
  lease.release();
  assert.equal(existsSync(WriterLease.leasePath(session)), false);
  assert.equal(WriterLease.inspect(session), null);
});

test("a lease file deleted by hand and made again by a new owner: the old holder's release keeps it", () => {
  const session = join(dir, "by-hand.jsonl");
  const old = WriterLease.acquire(session);
  rmSync(WriterLease.leasePath(session));
  const next = WriterLease.acquire(session);
  old.release();
  assert.ok(existsSync(WriterLease.leasePath(session)), "the new owner's file stays");
  leaseError(() => WriterLease.acquire(session));
  next.release();
  assert.equal(existsSync(WriterLease.leasePath(session)), false);
});

test("SessionManager with a lease: a live holder means lease_held, or a read-only session by option", async () => {
  const session = join(dir, "managed.jsonl");
  SessionFile.create(session, make.header(), [make.user("m1", null, "owned")]).close();
  const before = readFileSync(session);
  const { child, pid } = await startHolder(session);
  try {
    leaseError(() => SessionManager.open(session, dir, "/tmp/project", { lease: "fail" }));

    const reader = SessionManager.open(session, dir, "/tmp/project", { lease: "read-only" });
    assert.equal(reader.isReadOnly(), true);
    assert.deepEqual(
      reader.getEntries().map((e) => e.id),
      ["m1"],
    );
    assert.throws(
      () => reader.appendMessage({ role: "user", content: "not mine to write", timestamp: 1 }),
      (error) => isSessionTreeError(error, "read_only"),
    );
    reader.close();
    assert.deepEqual(readFileSync(session), before, "a refused writer wrote nothing");
  } finally {
    const closed = new Promise((resolve) => child.on("close", resolve));
    child.kill("SIGKILL");
    await closed;
  }
  // The holder died: the next owner takes the lease over and can append.
  const owner = SessionManager.open(session, dir, "/tmp/project", { lease: "fail" });
  assert.equal(owner.isReadOnly(), false);
  assert.equal(WriterLease.inspect(session)?.pid, process.pid, `took over from ${pid}`);
  owner.appendMessage({ role: "user", content: "mine now", timestamp: 2 });
  owner.close();
  assert.equal(existsSync(WriterLease.leasePath(session)), false, "close() leaves no lease file");
  assert.ok(readFileSync(session).subarray(0, before.length).equals(before));
});
