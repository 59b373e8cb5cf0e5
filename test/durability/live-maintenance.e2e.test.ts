// Maintenance commands racing live writers in other processes.
//
// Every test runs the real CLI (bin/sessiontree.js from source) and/or real writer processes: our
// SessionManager (normal or exclusive locking, with or without the writer lease) and pi's own
// SessionManager (appendFileSync, no lock). Races are made deterministic with barrier hooks that a
// child loads with `--import` (written to the scratch folder below): a child pauses right before
// the rewrite's hard link (rewrite.ts: the file has been read under its lock, the rename follows),
// right before re-reading the file in repair, or right before a writer's first open for append
// (the session has been read, nothing is locked yet), and waits for a file the test writes. A
// process blocked on a session's flock is recognised in /proc/locks.
//
// After each race: every entry a writer was told was written is in the file exactly once, the file
// reads without findings (fsck), and pi's SessionManager builds the same context as ours.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import {
  closeSync,
  copyFileSync,
  existsSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { withExclusiveLock } from "../../src/file/flock.js";
import { fsckFile, isFinding } from "../../src/file/fsck.js";
import { repairFile } from "../../src/file/repair.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { cliEnv, runScenario } from "../cli/helpers.js";
import { messageMaker } from "../support/messages.js";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const BIN = join(REPO, "bin/sessiontree.js");
const V1_FIXTURE = resolve(REPO, "../shared/fixtures/pi/large-session.jsonl");
const V1_NAME = "2025-11-20T23-33-50-805Z_d703a1a9-1b7b-4fb1-b512-c9738b1fe617.jsonl";

const RUN = mkdtempSync(join(tmpdir(), "st-live-maintenance-"));
/** Every child this file started: a test that fails half-way leaves none behind (one may be at a barrier). */
const started = new Set<ChildProcess>();
after(() => {
  for (const child of started)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  if (!process.env.HUNT_KEEP) rmSync(RUN, { recursive: true, force: true });
});
// In-process readers (the sidecar index of the stress test) keep their caches here too.
process.env.SESSIONTREE_CACHE_DIR = join(RUN, "cache");

// ---------------------------------------------------------------------------------------------
// Child scripts, written to the scratch folder.

const HOOK = join(RUN, "hook.mjs");
writeFileSync(
  HOOK,
  `// Barriers for a child: HUNT_PAUSE lists points (link, read, open) to stop at, once each.
import fs from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
const dir = process.env.HUNT_BARRIER_DIR;
const name = process.env.HUNT_NAME ?? "child";
const pauses = new Set((process.env.HUNT_PAUSE ?? "").split(",").filter(Boolean));
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const done = new Set();
function barrier(point) {
  if (!pauses.has(point) || done.has(point)) return;
  done.add(point);
  fs.writeFileSync(dir + "/" + name + ".at-" + point, String(process.pid));
  const go = dir + "/" + name + ".go-" + point;
  const until = Date.now() + 30000;
  while (!fs.existsSync(go)) {
    if (Date.now() > until) throw new Error("barrier " + go + " timed out");
    sleep(2);
  }
}
if (dir) {
  const link = fs.linkSync;
  fs.linkSync = function (...args) { barrier("link"); return link.apply(this, args); };
  // "read": a session file was read to its end through a descriptor (a rewrite has what it
  // will write from), or read whole by path.
  const sessionFds = new Set();
  const readWhole = fs.readFileSync;
  fs.readFileSync = function (file, ...rest) {
    if (typeof file === "string" && file.endsWith(".jsonl")) barrier("read");
    return readWhole.call(this, file, ...rest);
  };
  const readSome = fs.readSync;
  fs.readSync = function (fd, ...rest) {
    const n = readSome.call(this, fd, ...rest);
    if (n === 0 && sessionFds.has(fd)) barrier("read");
    return n;
  };
  const open = fs.openSync;
  fs.openSync = function (file, flags, ...rest) {
    if (typeof file === "string" && file.endsWith(".jsonl") && flags === (fs.constants.O_RDWR | fs.constants.O_APPEND)) barrier("open");
    const fd = open.call(this, file, flags, ...rest);
    if (typeof file === "string" && file.endsWith(".jsonl")) sessionFds.add(fd);
    return fd;
  };
  const close = fs.closeSync;
  fs.closeSync = function (fd) {
    sessionFds.delete(fd);
    return close.call(this, fd);
  };
  syncBuiltinESMExports();
}
`,
);

const AGENT = join(RUN, "agent.mts");
writeFileSync(
  AGENT,
  `// A writer driven over stdin: "append TEXT" appends a user message and answers "a <id>",
// "close" closes the manager (lock and lease let go) and answers "closed", "exit" ends.
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
const [path, kind, locking, lease] = process.argv.slice(2);
const repo = process.env.HUNT_REPO;
let append, close;
if (kind === "pi") {
  const pi = await import(pathToFileURL(repo + "/node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js").href);
  const m = pi.SessionManager.open(path);
  append = (text) => m.appendMessage({ role: "user", content: text, timestamp: Date.now() });
  close = () => {};
} else {
  const { SessionManager } = await import(pathToFileURL(repo + "/src/session/session-manager.ts").href);
  const m = SessionManager.open(path, undefined, undefined, {
    locking,
    lease: lease === "none" ? undefined : lease,
  });
  append = (text) => m.appendMessage({ role: "user", content: text, timestamp: Date.now() });
  close = () => m.close();
}
process.stdout.write("ready\\n");
for await (const line of createInterface({ input: process.stdin })) {
  const [cmd, arg] = line.split(" ");
  try {
    if (cmd === "append") process.stdout.write("a " + append(arg ?? "x") + "\\n");
    else if (cmd === "close") { close(); process.stdout.write("closed\\n"); }
    else if (cmd === "exit") break;
  } catch (error) {
    process.stdout.write("e " + String(error?.code ?? "") + " " + String(error?.message).replace(/\\n/g, " ") + "\\n");
  }
}
close();
process.exit(0);
`,
);

const LOOP = join(RUN, "loop-writer.mts");
writeFileSync(
  LOOP,
  `// Appends COUNT entries as fast as it can after "go" on stdin, acknowledging each as "a <id> <seq>".
// mode "manager": SessionManager (a large file resumes through the sidecar index), bursts of 1-7
// appends per job; mode "group": SessionFile.appendAsync, 10 per turn, durability fsync.
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
const [path, mode, countArg] = process.argv.slice(2);
const repo = process.env.HUNT_REPO;
const count = Number(countArg);
const { SessionFile } = await import(pathToFileURL(repo + "/src/file/session-file.ts").href);
const { SessionManager } = await import(pathToFileURL(repo + "/src/session/session-manager.ts").href);
const manager = mode === "manager" ? SessionManager.open(path) : null;
const file = mode === "group" ? SessionFile.open(path, { durability: "fsync" }) : null;
if (manager) process.stderr.write("backing " + manager.backing?.constructor?.name + "\\n");
process.stdout.write("ready\\n");
const lines = createInterface({ input: process.stdin });
await new Promise((resolve) => lines.once("line", resolve));
if (manager) {
  let seq = 0;
  await new Promise((resolve) => {
    const step = () => {
      let out = "";
      const burst = 1 + (seq % 7);
      for (let i = 0; i < burst && seq < count; i++, seq++) {
        out += "a " + manager.appendMessage({ role: "user", content: "w1-" + seq, timestamp: seq }) + " " + seq + "\\n";
      }
      process.stdout.write(out);
      if (seq >= count) resolve(); else setTimeout(step, seq % 3);
    };
    step();
  });
  manager.close();
} else {
  for (let seq = 0; seq < count; seq += 10) {
    const batch = [];
    for (let i = seq; i < Math.min(count, seq + 10); i++) {
      batch.push(
        file
          .appendAsync((tree) => [tree.append({ type: "custom", customType: "hunt", data: { seq: i } })])
          .then(([entry]) => process.stdout.write("a " + entry.id + " " + i + "\\n")),
      );
    }
    await Promise.all(batch);
  }
  file.close();
}
process.stdout.write("done\\n");
lines.close();
`,
);

// ---------------------------------------------------------------------------------------------
// Driving children.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: () => boolean, label: string, ms = 20_000): Promise<void> {
  const started = Date.now();
  while (!what()) {
    if (Date.now() - started > ms) throw new Error(`timed out waiting for: ${label}`);
    await sleep(3);
  }
}

let dirs = 0;
function testDir(label: string): string {
  const dir = join(RUN, `${++dirs}-${label}`);
  mkdirSync(dir);
  return dir;
}

function childEnv(dir: string, name: string, pause: string | undefined): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "",
    HOME: RUN,
    NO_COLOR: "1",
    SESSIONTREE_FROM_SOURCE: "1",
    SESSIONTREE_ROOT: join(RUN, "root"),
    SESSIONTREE_CACHE_DIR: join(RUN, "cache"),
    HUNT_REPO: REPO,
    HUNT_BARRIER_DIR: dir,
    HUNT_NAME: name,
    HUNT_PAUSE: pause ?? "",
  };
}

interface CliRun {
  pid: number;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** The real `sessiontree` command, from source; `pause` stops it at the hook's barriers. */
function startCli(dir: string, name: string, args: string[], pause?: string): CliRun {
  const hook = pause ? ["--import", pathToFileURL(HOOK).href] : [];
  const child = spawn(process.execPath, [...hook, BIN, ...args], {
    cwd: dir,
    env: childEnv(dir, name, pause),
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolveDone) =>
    child.on("close", (code) => resolveDone({ code, stdout, stderr })),
  );
  return { pid: child.pid as number, done };
}

/** A line-protocol child (agent.mts, loop-writer.mts). */
class Child {
  private lines: string[] = [];
  private wake: (() => void) | null = null;
  private exited = false;
  stderr = "";
  readonly exit: Promise<number | null>;

  constructor(readonly process: ChildProcess) {
    started.add(process);
    let buffered = "";
    process.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      const parts = buffered.split("\n");
      buffered = parts.pop() ?? "";
      this.lines.push(...parts);
      this.wake?.();
    });
    process.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      this.stderr += chunk;
    });
    this.exit = new Promise((resolveExit) =>
      process.on("close", (code) => {
        this.exited = true;
        this.wake?.();
        resolveExit(code);
      }),
    );
  }

  async next(): Promise<string> {
    while (this.lines.length === 0) {
      if (this.exited) throw new Error(`child exited; stderr: ${this.stderr}`);
      await new Promise<void>((r) => {
        this.wake = r;
      });
      this.wake = null;
    }
    return this.lines.shift() as string;
  }

  /** Every line so far (for the loop writers, read at the end). */
  drain(): string[] {
    const all = this.lines;
    this.lines = [];
    return all;
  }

  send(line: string): void {
    this.process.stdin?.write(`${line}\n`);
  }

  async stop(): Promise<void> {
    if (!this.exited) this.process.stdin?.end("exit\n");
    await this.exit;
  }
}

interface AgentOptions {
  kind: "ours" | "pi";
  locking?: "normal" | "exclusive";
  lease?: "none" | "fail";
  pause?: string;
}

class Agent extends Child {
  /** Appends a user message; resolves with its id once the child's append returned. */
  async append(text: string): Promise<string> {
    this.send(`append ${text}`);
    const line = await this.next();
    if (!line.startsWith("a ")) throw new Error(`append ${text} failed: ${line}`);
    return line.slice(2);
  }

  async close(): Promise<void> {
    this.send("close");
    assert.equal(await this.next(), "closed");
  }
}

async function startAgent(dir: string, name: string, path: string, options: AgentOptions): Promise<Agent> {
  const hook = options.pause ? ["--import", pathToFileURL(HOOK).href] : [];
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      ...hook,
      AGENT,
      path,
      options.kind,
      options.locking ?? "normal",
      options.lease ?? "none",
    ],
    { cwd: REPO, env: childEnv(dir, name, options.pause), stdio: ["pipe", "pipe", "pipe"] },
  );
  const agent = new Agent(child);
  assert.equal(await agent.next(), "ready");
  return agent;
}

const reached = (dir: string, name: string, point: string) =>
  until(() => existsSync(join(dir, `${name}.at-${point}`)), `${name} at ${point}`);
const release = (dir: string, name: string, point: string) =>
  writeFileSync(join(dir, `${name}.go-${point}`), "");

/** Whether process `pid` is blocked waiting for an flock (a `->` line of /proc/locks). */
function blockedOnLock(pid: number): boolean {
  return readFileSync("/proc/locks", "utf8")
    .split("\n")
    .some((line) => line.includes("->") && line.includes("FLOCK") && line.split(/\s+/).includes(String(pid)));
}
const waitUntilBlocked = (pid: number, label: string) => until(() => blockedOnLock(pid), label);

// ---------------------------------------------------------------------------------------------
// Sessions and checks.

const { user, assistant } = messageMaker();

/** A v3 session of ours with a user message and a reply (pi persists its appends only after a reply). */
function newSession(dir: string): { path: string; u1: string; a1: string } {
  const sm = SessionManager.create("/work/hunt-project", dir);
  const u1 = sm.appendMessage(user("hello"));
  const a1 = sm.appendMessage(assistant("hi"));
  const path = sm.getSessionFile() as string;
  sm.close();
  return { path, u1, a1 };
}

/** A damaged line in the middle of a session file (work for `repair`). */
function damage(path: string): void {
  const lines = readFileSync(path, "utf8").split("\n");
  lines.splice(2, 0, "this line is not json");
  writeFileSync(path, lines.join("\n"));
}

function copyV1(dir: string): string {
  const path = join(dir, V1_NAME);
  copyFileSync(V1_FIXTURE, path);
  return path;
}

/** Entry ids of the file's lines in file order ("<damaged>" for a line that is not JSON). */
function idsInFile(path: string): string[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .slice(1)
    .filter((line) => line !== "")
    .map((line) => {
      try {
        return String((JSON.parse(line) as { id?: unknown }).id);
      } catch {
        return "<damaged>";
      }
    });
}

function assertEachOnce(path: string, acked: readonly string[], what: string): void {
  const counts = new Map<string, number>();
  for (const id of idsInFile(path)) counts.set(id, (counts.get(id) ?? 0) + 1);
  const missing = acked.filter((id) => !counts.has(id));
  const twice = acked.filter((id) => (counts.get(id) ?? 0) > 1);
  assert.deepEqual(
    missing,
    [],
    `${what}: ${missing.length} of ${acked.length} acknowledged entries are not in the session file`,
  );
  assert.deepEqual(twice, [], `${what}: acknowledged entries written twice`);
}

function findings(path: string): string[] {
  return fsckFile(path)
    .issues.filter(isFinding)
    .map((issue) => `${issue.code}: ${issue.message}`);
}

function piFields(context: { messages: unknown[]; thinkingLevel: string; model: unknown }) {
  return { messages: context.messages, thinkingLevel: context.thinkingLevel, model: context.model };
}

/** Ours (whole read) and pi open the file at the same context; returns ours. Only for v3 files (pi rewrites older ones). */
function sameContextAsPi(path: string): ReturnType<SessionManager["buildSessionContext"]> {
  const ours = SessionManager.open(path, undefined, undefined, { open: "whole" });
  const context = ours.buildSessionContext();
  ours.close();
  const pi = PiSessionManager.open(path);
  assert.deepEqual(
    piFields(context),
    pi.buildSessionContext(),
    "pi opens the file at the same context as ours",
  );
  return context;
}

const textsOf = (context: { messages: unknown[] }) =>
  context.messages.map((m) => {
    const content = (m as { content?: unknown }).content;
    return typeof content === "string" ? content : JSON.stringify(content);
  });

// ---------------------------------------------------------------------------------------------
// 1. A rewrite that waited for the lock of a rewrite that has since renamed a new file in.
//
// Contract (docs/architecture.md, Files; file/migrate.ts, file/repair.ts): repair and migrate run
// "under the file's lock so no sessiontree writer interleaves", and "two processes on one session
// file never ... lose an acknowledged entry". A tool that waited for the lock of another rewrite
// must therefore work on the file the path names once it has the lock, not on the replaced one.

test("fixed: `sessiontree migrate` that waited for an agent's own v1→v3 migration rewrites the old inode over the agent's acknowledged entry", async () => {
  const dir = testDir("migrate-vs-agent");
  const path = copyV1(dir);
  // The agent (our SessionManager, normal locking) opened a pi v1 session; its first append
  // rewrites the file as v3 first (file-backing.ts rewrittenAsCurrent → migrateFile).
  const agent = await startAgent(dir, "agent", path, { kind: "ours", pause: "link" });
  try {
    const firstAppend = agent.append("E1");
    await reached(dir, "agent", "link"); // under the v1 file's lock, read done, rename next
    // The user runs `sessiontree migrate` meanwhile: it opens the v1 file and waits for its lock.
    const migrate = startCli(dir, "cli", ["migrate", path], "link");
    await waitUntilBlocked(migrate.pid, "migrate waits for the lock");
    release(dir, "agent", "link");
    const e1 = await firstAppend; // the agent's migration renamed v3 in; E1 appended to it
    assert.ok(idsInFile(path).includes(e1), "sanity: E1 is in the file once the agent's append returned");
    // Were it to rewrite (the file it waited on is gone from the path), it may go on at once.
    release(dir, "cli", "link");
    const result = await migrate.done;
    const e2 = await agent.append("E2");
    await agent.stop();

    assertEachOnce(path, [e1, e2], `migrate said: ${result.stdout.trim()}`);
    assert.deepEqual(findings(path), [], "the session reads without findings");
    const context = sameContextAsPi(path);
    assert.deepEqual(textsOf(context).slice(-2), ["E1", "E2"], "the agent's conversation ends E1, E2");
  } finally {
    await agent.stop();
  }
});

test("fixed: two `sessiontree repair` runs on one damaged session: the second rewrites the file it waited on, over an append made in between", async () => {
  const dir = testDir("repair-twice");
  const { path } = newSession(dir);
  damage(path);
  const agent = await startAgent(dir, "agent", path, { kind: "ours" });
  try {
    const first = startCli(dir, "r1", ["repair", path], "link");
    await reached(dir, "r1", "link");
    // The second repair opens the same (damaged) file and waits for its lock; it is stopped again
    // once it holds it and has decoded it, before it reads the path to compare (repair.ts).
    const second = startCli(dir, "r2", ["repair", path], "read");
    await waitUntilBlocked(second.pid, "the second repair waits for the lock");
    release(dir, "r1", "link");
    const r1 = await first.done;
    assert.equal(r1.code, 0, r1.stderr);
    await reached(dir, "r2", "read"); // it decoded the old, damaged inode
    const e1 = await agent.append("E1"); // lands in the repaired file the path names
    release(dir, "r2", "read");
    const r2 = await second.done;
    const e2 = await agent.append("E2");
    await agent.stop();

    assertEachOnce(path, [e1, e2], `the second repair said: ${r2.stdout.trim()}`);
    assert.deepEqual(findings(path), []);
    assert.deepEqual(textsOf(sameContextAsPi(path)).slice(-2), ["E1", "E2"]);
  } finally {
    await agent.stop();
  }
});

test("fixed: `sessiontree label` on a pi v1 session while `sessiontree migrate` runs: the label it reported is gone", async () => {
  const dir = testDir("label-vs-migrate");
  const path = copyV1(dir);
  const reader = SessionManager.open(path, undefined, undefined, { open: "whole" }); // never writes
  const target = reader.getEntries()[0]?.id as string;
  reader.close();
  // `label` migrates the v1 file before its append (under the lock, then a rename) ...
  const label = startCli(dir, "label", ["label", target, "keep-me", "-s", path], "link");
  await reached(dir, "label", "link");
  // ... while `migrate --all`-style maintenance opens the same v1 file and waits for that lock.
  const migrate = startCli(dir, "migrate", ["migrate", path], "link");
  await waitUntilBlocked(migrate.pid, "migrate waits for the lock");
  release(dir, "label", "link");
  const labelled = await label.done;
  assert.equal(labelled.code, 0, labelled.stderr);
  assert.match(labelled.stdout, /Labelled/);
  release(dir, "migrate", "link");
  const migrated = await migrate.done;

  const reopened = SessionManager.open(path, undefined, undefined, { open: "whole" });
  const kept = reopened.getLabel(target);
  reopened.close();
  assert.equal(
    kept,
    "keep-me",
    `label printed "${labelled.stdout.split("\n")[0]}" and exited 0; migrate then printed "${migrated.stdout.trim()}"`,
  );
  assert.deepEqual(findings(path), []);
});

// ---------------------------------------------------------------------------------------------
// 2. A rewrite and a writer that does not lock (pi).
//
// Contract: "nothing lost"; "no file is ever overwritten with less than it held" (PI-FORMAT.md);
// repair lists every line it leaves out. rewrite.ts keeps pi's line in the backup, but a rewrite
// that renames in a file without a line the old one held by then loses it from the session, says
// nothing about it, and pi's next entry (a child of the lost one) then dangles.

test("fixed: `sessiontree repair` while pi appends: pi's entry, written after the repair read the file, vanishes from the session without a word", async () => {
  const dir = testDir("repair-vs-pi");
  const { path } = newSession(dir);
  damage(path);
  const pi = await startAgent(dir, "pi", path, { kind: "pi" });
  try {
    const repair = startCli(dir, "repair", ["repair", "--json", path], "link");
    await reached(dir, "repair", "link"); // read and planned under the lock; rename next
    const p1 = await pi.append("P1"); // pi: appendFileSync, no lock
    release(dir, "repair", "link");
    const report = await repair.done;
    const p2 = await pi.append("P2");
    await pi.stop();

    const repaired = (
      JSON.parse(report.stdout) as { files: { backupPath: string; actions: { kind: string }[] }[] }
    ).files[0];
    const actions = repaired?.actions;
    // Where pi's line went: the backup is the old inode itself (a hard link), which pi appended to.
    assert.ok(
      readFileSync(repaired?.backupPath as string, "utf8").includes(p1),
      "pi's first line is in the backup",
    );
    assertEachOnce(
      path,
      [p1, p2],
      `repair's actions: ${JSON.stringify(actions?.map((a) => a.kind))} (nothing about pi's line)`,
    );
    assert.deepEqual(findings(path), [], "no dangling parent after the repair");
    assert.deepEqual(textsOf(sameContextAsPi(path)).slice(-2), ["P1", "P2"]);
  } finally {
    await pi.stop();
  }
});

test("fixed: `sessiontree repair` of a clean session while pi appends: nothing to repair, yet it rewrites the file and drops pi's entry", async () => {
  const dir = testDir("repair-clean-vs-pi");
  const { path } = newSession(dir);
  const inode = statSync(path).ino;
  const pi = await startAgent(dir, "pi", path, { kind: "pi" });
  try {
    // repairFile decodes the file through its descriptor, then reads the path again to compare.
    const repair = startCli(dir, "repair", ["repair", "--json", path], "read");
    await reached(dir, "repair", "read");
    const p1 = await pi.append("P1");
    release(dir, "repair", "read");
    const report = JSON.parse((await repair.done).stdout) as {
      files: { changed: boolean; actions: unknown[] }[];
    };
    await pi.stop();

    assertEachOnce(path, [p1], `repair reported ${JSON.stringify(report.files[0])}`);
    assert.equal(report.files[0]?.changed, false, "a clean session is left alone");
    assert.equal(statSync(path).ino, inode, "the clean session was not rewritten");
  } finally {
    await pi.stop();
  }
});

// ---------------------------------------------------------------------------------------------
// 3. Metadata commands and the session's leaf.
//
// Contract: a label or a name is metadata, outside the context (PI-FORMAT.md); "others' entries
// join the tree" (architecture.md), and sync's pull, for one, picks the file's leaf under the lock
// (sync/pull.ts). A `label`/`name` run must therefore not move where the session resumes: the
// entry another process appended and acknowledged just before stays on the resumed path, for ours
// and for pi.

test("fixed: `sessiontree label` while our agent appends hangs the label under a stale leaf: the session now resumes without the agent's last entry", async () => {
  const dir = testDir("label-leaf");
  const { path, u1 } = newSession(dir);
  const agent = await startAgent(dir, "agent", path, { kind: "ours" });
  try {
    // label has read the session, and is about to lock and append
    const label = startCli(dir, "label", ["label", u1, "important", "-s", path], "open");
    await reached(dir, "label", "open");
    const e1 = await agent.append("E1"); // acknowledged before the label is written
    release(dir, "label", "open");
    const labelled = await label.done;
    assert.equal(labelled.code, 0, labelled.stderr);
    await agent.stop(); // the agent's turn is over

    assertEachOnce(path, [e1], "agent");
    assert.deepEqual(findings(path), []);
    const resumed = SessionManager.open(path);
    assert.equal(resumed.getLabel(u1), "important");
    const onPath = resumed.getBranch().map((e) => e.id);
    resumed.close();
    const context = sameContextAsPi(path);
    assert.ok(
      onPath.includes(e1),
      `E1 (${e1}) is on the path the session resumes at; context is ${JSON.stringify(textsOf(context))}`,
    );
  } finally {
    await agent.stop();
  }
});

test("fixed: `sessiontree name` while pi appends: pi reopening the session no longer sees its own last message", async () => {
  const dir = testDir("name-leaf");
  const { path } = newSession(dir);
  const pi = await startAgent(dir, "pi", path, { kind: "pi" });
  try {
    const name = startCli(dir, "name", ["name", "my session", "-s", path], "open");
    await reached(dir, "name", "open");
    const p1 = await pi.append("P1");
    release(dir, "name", "open");
    const named = await name.done;
    assert.equal(named.code, 0, named.stderr);
    await pi.stop();

    assertEachOnce(path, [p1], "pi");
    const context = sameContextAsPi(path);
    assert.equal(
      textsOf(context).at(-1),
      "P1",
      `pi's last message ends the resumed context; got ${JSON.stringify(textsOf(context))}`,
    );
  } finally {
    await pi.stop();
  }
});

// ---------------------------------------------------------------------------------------------
// 4. Regression checks that hold: what the design promises for our own locking writers.

test("holds: repeated repairs (each renaming a new file in) while two of our writers append (indexed resume in bursts, group commit with fsync)", async () => {
  const dir = testDir("repair-storm");
  // A session over 1 MiB with a compaction: our SessionManager resumes it through the sidecar index.
  const sm = SessionManager.create("/work/hunt-project", dir);
  sm.appendMessage(user("start"));
  for (let i = 0; i < 560; i++) sm.appendMessage(user("x".repeat(2000)));
  const kept = sm.appendMessage(user("kept"));
  const compaction = sm.appendCompaction("summary", kept, 1000);
  const path = sm.getSessionFile() as string;
  sm.close();
  assert.ok(statSync(path).size > 1 << 20);

  const spawnLoop = (mode: string, count: number) =>
    new Child(
      spawn(process.execPath, ["--import", "tsx", LOOP, path, mode, String(count)], {
        cwd: REPO,
        env: childEnv(dir, mode, undefined),
        stdio: ["pipe", "pipe", "pipe"],
      }),
    );
  const writers = [spawnLoop("manager", 300), spawnLoop("group", 200)];
  for (const w of writers) assert.equal(await w.next(), "ready");
  assert.match(writers[0]?.stderr ?? "", /IndexedBacking/, "the manager resumed through the index");
  let finished = 0;
  for (const w of writers) void w.exit.then(() => finished++);
  for (const w of writers) w.send("go");

  let repairs = 0;
  // At most 40 repairs (each reads, rewrites and fsyncs 1.2 MB; the writers re-read it after each).
  while (finished < writers.length && repairs < 40) {
    // A damaged line, written under the lock to the file the path names; then a repair renames a
    // clean file in, as `sessiontree repair` does (same function).
    const fd = openSync(path, "r+");
    try {
      withExclusiveLock(fd, () => {
        if (fstatSync(fd).ino === statSync(path).ino) writeSync(fd, "not json\n", fstatSync(fd).size);
      });
    } finally {
      closeSync(fd);
    }
    if (repairFile(path).changed) repairs++;
    await sleep(5);
  }
  const overlapped = finished < writers.length; // the repairs ran while both were still writing
  assert.deepEqual(
    await Promise.all(writers.map((w) => w.exit)),
    [0, 0],
    writers.map((w) => w.stderr).join("\n"),
  );
  repairFile(path); // the last damaged line, if any
  assert.ok(repairs >= 10 && overlapped, `only ${repairs} repairs ran during the appends`);

  const acked = writers.map((w) =>
    w
      .drain()
      .filter((line) => line.startsWith("a "))
      .map((line) => line.split(" ")[1] as string),
  );
  assert.equal(acked[0]?.length, 300);
  assert.equal(acked[1]?.length, 200);
  assertEachOnce(path, acked.flat(), `after ${repairs} repairs`);
  assert.deepEqual(findings(path), []);
  // The manager kept its own conversation through every replacement: each of its messages is the
  // child of the one before, the first the child of the leaf it resumed at.
  const whole = SessionManager.open(path, undefined, undefined, { open: "whole" });
  const chain = (acked[0] as string[]).map((id) => whole.getEntry(id)?.parentId);
  whole.close();
  assert.deepEqual(chain, [compaction, ...(acked[0] as string[]).slice(0, -1)]);
  sameContextAsPi(path);
});

test("holds: `sessiontree repair` waits for an exclusive-mode owner's close, then nothing of the owner's is lost", async () => {
  const dir = testDir("repair-vs-exclusive");
  const { path } = newSession(dir);
  damage(path);
  const owner = await startAgent(dir, "owner", path, { kind: "ours", locking: "exclusive" });
  try {
    const x1 = await owner.append("X1"); // the lock is kept from here until close()
    const repair = startCli(dir, "repair", ["repair", "--json", path]);
    await waitUntilBlocked(repair.pid, "repair waits for the owner");
    const x2 = await owner.append("X2");
    await owner.close();
    const report = await repair.done;
    assert.equal(report.code, 0, report.stderr);
    const x3 = await owner.append("X3"); // a new inode: the owner re-reads and goes on
    await owner.stop();

    assertEachOnce(path, [x1, x2, x3], "owner");
    assert.deepEqual(findings(path), []);
    assert.deepEqual(textsOf(sameContextAsPi(path)).slice(-3), ["X1", "X2", "X3"]);
  } finally {
    await owner.stop();
  }
});

test("holds: `label`, `name` and `checkout` refuse cleanly (lease_held, exit 1, file untouched) while an agent owns the session", async () => {
  const dir = testDir("lease-owner");
  const { path, u1 } = newSession(dir);
  const owner = await startAgent(dir, "owner", path, { kind: "ours", lease: "fail" });
  try {
    const o1 = await owner.append("O1");
    const before = readFileSync(path);
    const commands = [
      ["label", u1, "x", "-s", path, "--json"],
      ["name", "renamed", "-s", path, "--json"],
      ["checkout", u1, "-s", path, "--json"],
    ];
    // One process runs the three commands in turn (main() per call), as the CLI tests do.
    const env = { ...cliEnv(dir), SESSIONTREE_CACHE_DIR: join(RUN, "cache") };
    const results = runScenario(
      dir,
      commands.map((args) => ({ args, env })),
    );
    for (const [i, run] of results.entries()) {
      const name = commands[i]?.[0];
      assert.equal(run.code, 1, `${name}: ${run.stdout}${run.stderr}`);
      assert.equal(
        (JSON.parse(run.stdout) as { error: { code: string } }).error.code,
        "lease_held",
        `${name} names the reason`,
      );
    }
    assert.ok(readFileSync(path).equals(before), "the refused commands left the file as it was");
    const o2 = await owner.append("O2");
    await owner.stop();
    assertEachOnce(path, [o1, o2], "owner");
    assert.deepEqual(findings(path), []);
    sameContextAsPi(path);
  } finally {
    await owner.stop();
  }
});
