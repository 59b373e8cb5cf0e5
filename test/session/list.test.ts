import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { encodeCwdPi, sessionDirFor } from "../../src/file/paths.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { assistant, user } from "./support/scenario.js";

// Never the real home directory: both implementations are pointed at a temp root.
const root = mkdtempSync(join(tmpdir(), "st-list-"));
process.env.PI_CODING_AGENT_DIR = root;
process.env.SESSIONTREE_ROOT = root;
after(() => rmSync(root, { recursive: true, force: true }));
const opts = { root };

/** A session of `cwd` under the root whose last activity is `time` (message timestamps). */
function session(cwd: string, time: number, texts: string[], name?: string): SessionManager {
  const sm = SessionManager.create(cwd, undefined, opts);
  texts.forEach((text, i) => {
    const message = i % 2 === 0 ? user(text) : assistant(text);
    sm.appendMessage({ ...message, timestamp: time - (texts.length - 1 - i) * 1000 });
  });
  if (name) sm.appendSessionInfo(name);
  sm.close();
  return sm;
}

const A = "/work/a";
const B = "/work/b-c";
const base = Date.parse("2026-02-01T00:00:00.000Z");
const older = session(A, base, ["first question", "answer", "more"], "older one");
const newer = session(A, base + 60_000, ["newer question"]);
const other = session(B, base + 30_000, ["b's question", "b's answer"]);

describe("list, listAll, continueRecent", () => {
  test("list(cwd): pi's fields, most recent activity first", async () => {
    const progress: [number, number][] = [];
    const list = await SessionManager.list(A, undefined, (n, total) => progress.push([n, total]), opts);
    assert.deepEqual(
      list.map((s) => s.id),
      [newer.getSessionId(), older.getSessionId()],
    );
    const info = list[1];
    assert.equal(info?.path, older.getSessionFile());
    assert.equal(info?.cwd, A);
    assert.equal(info?.name, "older one");
    assert.equal(info?.messageCount, 3);
    assert.equal(info?.firstMessage, "first question");
    assert.equal(info?.allMessagesText, "first question answer more");
    assert.equal(info?.modified.getTime(), base);
    assert.equal(info?.created.toISOString(), older.getHeader()?.timestamp);
    assert.equal(info?.parentSessionPath, undefined);
    assert.deepEqual(progress.at(-1), [2, 2]);
  });

  test("list with a session directory gives what pi's list gives for it", async () => {
    const dir = dirname(older.getSessionFile() as string);
    const ours = await SessionManager.list(A, dir);
    const pi = await PiSessionManager.list(A, dir);
    assert.deepEqual(ours, pi);
  });

  test("listAll: every cwd under the root, newest first, as pi lists the same folder", async () => {
    const ours = await SessionManager.listAll(undefined, opts);
    assert.deepEqual(
      ours.map((s) => s.id),
      [newer, other, older].map((s) => s.getSessionId()),
    );
    assert.deepEqual(ours, await PiSessionManager.listAll());
  });

  test("continueRecent opens the most recently modified session of the cwd, or starts one", () => {
    utimesSync(older.getSessionFile() as string, new Date(), new Date(Date.now() + 5000));
    const resumed = SessionManager.continueRecent(A, undefined, opts);
    assert.equal(resumed.getSessionFile(), older.getSessionFile());
    assert.equal(resumed.getEntries().length, 4);
    resumed.close();
    const fresh = SessionManager.continueRecent("/work/none", undefined, opts);
    assert.equal(fresh.getEntries().length, 0);
    assert.equal(dirname(fresh.getSessionFile() as string), sessionDirFor(root, "/work/none"));
  });

  test("pi's colliding folder names never mix two projects (/a/b-c vs /a-b/c, pi #4877)", async () => {
    // A pi session of /x/b-c, in pi's folder that /x-b/c encodes to as well.
    const piDir = join(root, "sessions", encodeCwdPi("/x/b-c"));
    assert.equal(piDir, join(root, "sessions", encodeCwdPi("/x-b/c")));
    mkdirSync(piDir, { recursive: true });
    const file = join(piDir, "2026-01-01T00-00-00-000Z_p1.jsonl");
    const header = {
      type: "session",
      version: 3,
      id: "p1",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/x/b-c",
    };
    const entry = {
      type: "message",
      id: "e1",
      parentId: null,
      timestamp: header.timestamp,
      message: user("pi's"),
    };
    writeFileSync(file, `${JSON.stringify(header)}\n${JSON.stringify(entry)}\n`);

    assert.deepEqual((await SessionManager.list("/x-b/c", undefined, undefined, opts)).length, 0);
    assert.deepEqual(
      (await SessionManager.list("/x/b-c", undefined, undefined, opts)).map((s) => s.id),
      ["p1"],
    );
    const resumed = SessionManager.continueRecent("/x-b/c", undefined, opts);
    assert.notEqual(resumed.getSessionFile(), file);
    const right = SessionManager.continueRecent("/x/b-c", undefined, opts);
    assert.equal(right.getSessionFile(), file);
    right.close();
    resumed.close();
  });
});
