/**
 * A released lease deletes its file (nothing is left beside the session). That must not let two
 * processes hold the lease at once: an acquirer may have opened the file just before its holder
 * deleted it, and its lock on the deleted file must not count. Several processes take and release
 * the lease of one session as fast as they can; while holding it, each creates a marker file with
 * O_EXCL, which fails if another holder is inside.
 *
 * The same file is the child (run with LEASE_STRESS_SESSION set).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { isSessionTreeError } from "../../src/core/errors.js";
import { WriterLease } from "../../src/file/lease.js";
import { tempDir } from "./support.js";

const SELF = fileURLToPath(import.meta.url);
const PROCESSES = 4;
/** How long each process races, once all have started. */
const RACE_MS = 2500;

if (process.env.LEASE_STRESS_SESSION) runChild(process.env.LEASE_STRESS_SESSION);
else defineTests();

/** Says `ready`, waits for a line on stdin, then races; exit 3 when another holder was inside with it. */
function runChild(session: string): void {
  process.stdout.write("ready\n");
  process.stdin.once("data", () => {
    race(session);
    process.exit(0);
  });
}

function race(session: string): void {
  const marker = `${session}.inside`;
  let held = 0;
  let refused = 0;
  for (const end = Date.now() + RACE_MS; Date.now() < end; ) {
    let lease: WriterLease;
    try {
      lease = WriterLease.acquire(session);
    } catch (error) {
      if (!isSessionTreeError(error, "lease_held")) throw error;
      refused++;
      continue;
    }
    try {
      closeSync(openSync(marker, "wx"));
    } catch {
      process.stdout.write("two holders at once\n");
      process.exit(3);
    }
    held++;
    unlinkSync(marker);
    lease.release();
  }
  process.stdout.write(`held ${held} refused ${refused}\n`);
}

function defineTests(): void {
  const { dir, cleanup } = tempDir("lease-release");
  after(cleanup);

  test("processes racing to take and release one lease never hold it together", async () => {
    const session = join(dir, "raced.jsonl");
    const children = Array.from({ length: PROCESSES }, () => startChild(session));
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.go();
    const results = await Promise.all(children.map((c) => c.done));
    for (const { code, out } of results) assert.equal(code, 0, out);
    const total = (name: string) =>
      results.reduce((sum, r) => sum + Number(new RegExp(`${name} (\\d+)`).exec(r.out)?.[1] ?? 0), 0);
    assert.ok(total("held") >= 200, `only ${total("held")} acquisitions`);
    assert.ok(total("refused") >= 100, `only ${total("refused")} refusals: the processes hardly raced`);
    assert.equal(existsSync(WriterLease.leasePath(session)), false, "the last release left no file");
  });
}

interface Racer {
  ready: Promise<void>;
  go: () => void;
  done: Promise<{ code: number | null; out: string }>;
}

function startChild(session: string): Racer {
  const child = spawn(process.execPath, ["--import", "tsx", SELF], {
    env: { ...process.env, LEASE_STRESS_SESSION: session },
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (text: string) => {
    out += text;
    if (out.includes("ready")) markReady();
  });
  const done = new Promise<{ code: number | null; out: string }>((resolve) =>
    child.on("close", (code) => {
      markReady();
      resolve({ code, out });
    }),
  );
  return { ready, go: () => child.stdin.write("go\n"), done };
}
