import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { encodeCwdPi, sessionDirFor } from "../../src/file/paths.js";
import type { SessionInfo } from "../../src/index.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { messageMaker } from "../support/messages.js";

/**
 * A pi user who swaps the import keeps finding the sessions pi wrote: with pi's arguments only,
 * `list`, `listAll`, `continueRecent` and `findSessions` also look under pi's agent directory,
 * while new sessions go to sessiontree's root. Everything runs in a temporary HOME, where pi
 * itself writes the pi sessions and lists them for comparison.
 */
const tmp = mkdtempSync(join(tmpdir(), "st-pi-lookup-"));
after(() => rmSync(tmp, { recursive: true, force: true }));
const home = join(tmp, "home");
process.env.HOME = home;
delete process.env.PI_CODING_AGENT_DIR;
const ourRoot = join(tmp, "sessiontree");
process.env.SESSIONTREE_ROOT = ourRoot;
process.env.SESSIONTREE_CACHE_DIR = join(tmp, "cache");
const piAgent = join(home, ".pi", "agent");
const { user, assistant } = messageMaker();

const A = "/work/a";
const B = "/work/b";

/** A session pi writes itself (pi writes the file at the first assistant message). */
function piSession(cwd: string, question: string, mtime: number): { id: string; path: string } {
  const sm = PiSessionManager.create(cwd);
  sm.appendMessage(user(question));
  sm.appendMessage(assistant(`answer to ${question}`) as never);
  const path = sm.getSessionFile() as string;
  utimesSync(path, mtime, mtime);
  return { id: sm.getSessionId(), path };
}

const piA1 = piSession(A, "pi a one", 1_000_000);
const piA2 = piSession(A, "pi a two", 2_000_000);
const piB = piSession(B, "pi b", 1_500_000);
const piFolderA = dirname(piA1.path);
// pi's oldest sessions have no cwd in their header: pi lists them with their folder, and so do we.
const oldPi = join(piFolderA, "2024-01-01T00-00-00-000Z_old.jsonl");
writeFileSync(
  oldPi,
  `${JSON.stringify({ type: "session", id: "old", timestamp: "2024-01-01T00:00:00.000Z" })}\n${JSON.stringify(
    {
      type: "message",
      timestamp: "2024-01-01T00:00:01.000Z",
      message: user("v1 question"),
    },
  )}\n`,
);
utimesSync(oldPi, 500_000, 500_000);
const ours = SessionManager.create(A);
ours.appendMessage(user("ours"));
ours.close();
const ourA = { id: ours.getSessionId(), path: ours.getSessionFile() as string };
utimesSync(ourA.path, 100_000, 100_000);
/** Session ids are UUIDv7: ids made in the same millisecond share their first characters. */
const prefixOf = (id: string) => id.slice(0, -4);

const ids = (list: SessionInfo[]) => list.map((s) => s.id).sort();
const underPi = (list: SessionInfo[]) => list.filter((s) => s.path.startsWith(piAgent));

/** Every file under `dir` with its size and mtime: what a read-only call must leave as it was. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      const stats = statSync(path);
      if (stats.isDirectory()) walk(path);
      else out.push(`${path} ${stats.size} ${stats.mtimeMs}`);
    }
  };
  walk(dir);
  return out;
}

describe("pi's sessions are found with pi's arguments", () => {
  test("the sessions are where pi puts them, and ours where our root is", () => {
    assert.equal(piFolderA, join(piAgent, "sessions", encodeCwdPi(A)));
    assert.equal(dirname(ourA.path), sessionDirFor(ourRoot, A));
  });

  test("list(cwd): pi's sessions of the cwd beside ours, each as pi lists it", async () => {
    const list = await SessionManager.list(A);
    assert.deepEqual(ids(list), [piA1.id, piA2.id, ourA.id, "old"].sort());
    assert.deepEqual(underPi(list), await PiSessionManager.list(A, piFolderA));
    const times = list.map((s) => s.modified.getTime());
    assert.deepEqual(
      times,
      [...times].sort((x, y) => y - x),
      "most recent first",
    );
  });

  test("listAll: every session of both roots; pi's as pi's listAll gives them", async () => {
    const all = await SessionManager.listAll();
    assert.deepEqual(ids(all), [piA1.id, piA2.id, piB.id, ourA.id, "old"].sort());
    assert.deepEqual(underPi(all), await PiSessionManager.listAll());
  });

  test("findSessions: an id prefix of the cwd first, then of any cwd, as pi resolves --session", async () => {
    const local = await SessionManager.findSessions(prefixOf(piA2.id), A);
    assert.deepEqual(
      local.map((s) => s.path),
      [piA2.path],
    );
    const global = await SessionManager.findSessions(prefixOf(piB.id), A);
    assert.deepEqual(
      global.map((s) => [s.path, s.cwd]),
      [[piB.path, B]],
    );
    assert.deepEqual(
      (await SessionManager.findSessions(ourA.id, B)).map((s) => s.path),
      [ourA.path],
    );
    assert.deepEqual(await SessionManager.findSessions("zzzz", A), []);
    await assert.rejects(SessionManager.findSessions("", A), { code: "invalid_argument" });
  });

  test("continueRecent resumes pi's newest session in its file; new sessions go to our root", () => {
    const resumed = SessionManager.continueRecent(A);
    assert.equal(resumed.getSessionFile(), piA2.path);
    assert.equal(PiSessionManager.continueRecent(A).getSessionFile(), piA2.path, "pi resumes the same");
    assert.equal(resumed.getSessionDir(), sessionDirFor(ourRoot, A));
    const before = snapshot(piAgent);
    resumed.newSession();
    resumed.appendMessage(user("a new session"));
    assert.equal(dirname(resumed.getSessionFile() as string), sessionDirFor(ourRoot, A));
    assert.deepEqual(snapshot(piAgent), before, "nothing new under pi's directory");
    resumed.close();
    rmSync(resumed.getSessionFile() as string); // the other tests count the sessions of A
    const fresh = SessionManager.continueRecent("/work/none");
    assert.equal(fresh.getEntries().length, 0);
    assert.equal(dirname(fresh.getSessionFile() as string), sessionDirFor(ourRoot, "/work/none"));
  });

  test("listing, finding and resuming write nothing into pi's directory", async () => {
    const before = snapshot(piAgent);
    await SessionManager.list(A);
    await SessionManager.listAll();
    await SessionManager.findSessions(prefixOf(piB.id), A);
    SessionManager.continueRecent(A).close();
    assert.deepEqual(snapshot(piAgent), before);
    assert.ok(!existsSync(join(piAgent, "sessions", encodeCwdPi("/work/none"))), "no folder made for a cwd");
  });
});

describe("which roots are looked under", () => {
  test("an explicit root alone, unless piAgentDir names pi's too; null leaves pi's out", async () => {
    assert.deepEqual(ids(await SessionManager.listAll(undefined, { root: ourRoot })), [ourA.id]);
    assert.deepEqual(ids(await SessionManager.list(A, undefined, undefined, { piAgentDir: null })), [
      ourA.id,
    ]);
    const both = await SessionManager.listAll(undefined, { root: ourRoot, piAgentDir: piAgent });
    assert.equal(both.length, 5);
    const fresh = SessionManager.continueRecent(A, undefined, { root: ourRoot });
    assert.equal(fresh.getSessionFile(), ourA.path);
    fresh.close();
  });

  test("pi's directory given as the root is listed once", async () => {
    const all = await SessionManager.listAll(undefined, { root: piAgent, piAgentDir: piAgent });
    assert.deepEqual(ids(all), [piA1.id, piA2.id, piB.id, "old"].sort());
  });

  test("PI_CODING_AGENT_DIR, with ~ as pi reads it, moves pi's directory", async () => {
    process.env.PI_CODING_AGENT_DIR = "~/custom-agent";
    try {
      const moved = piSession(A, "in the custom dir", 3_000_000);
      assert.ok(moved.path.startsWith(join(home, "custom-agent")));
      const list = await SessionManager.list(A);
      assert.deepEqual(ids(list), [moved.id, ourA.id].sort());
      const all = await SessionManager.listAll();
      assert.deepEqual(
        all.filter((s) => s.id !== ourA.id),
        await PiSessionManager.listAll(),
      );
    } finally {
      delete process.env.PI_CODING_AGENT_DIR;
    }
  });
});

describe("createBranchedSession", () => {
  test("writes the fork's file at once (pi waits for an assistant message)", () => {
    const dir = join(tmp, "forks");
    mkdirSync(dir);
    const sm = SessionManager.create(A, dir);
    const first = sm.appendMessage(user("only a question"));
    const pi = PiSessionManager.create(A, join(dir, "pi"));
    const piFirst = pi.appendMessage(user("only a question"));
    const fork = sm.createBranchedSession(first) as string;
    const piFork = pi.createBranchedSession(piFirst) as string;
    assert.ok(existsSync(fork), "ours is on disk");
    assert.ok(!existsSync(piFork), "pi's is not, yet");
    assert.equal(sm.getSessionFile(), fork);
    sm.close();
  });
});
