/**
 * Reading leaves no trace: the read-only commands (`ls`, `tree`, `show`, `show --pi` on a pi agent
 * directory, `fsck`, `export`) and the viewer's session list and session load write nothing into the
 * folders that hold sessions (pi's, often): names, sizes and mtimes of every file and folder are the
 * same afterwards. Their caches (the sidecar index of a large session, the listing catalog) go to
 * sessiontree's own cache directory, private to the user. A write command leaves no `.lease` file.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { after, describe, it } from "node:test";
import { encodeCwdPi, sessionDirFor, sessionsDir } from "../../src/file/paths.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { createLocalSource } from "../../src/viewer/local-source.js";
import { messageMaker } from "../support/messages.js";
import { cliEnv, runScenario, tempWorkspace } from "./helpers.js";

const CWD = "/work/project";
const ws = tempWorkspace();
after(ws.cleanup);
const piDir = join(ws.dir, "pi-agent");
const cache = join(ws.dir, "cache");
// The CLI runs in a child process that inherits this environment; the viewer runs here.
process.env.SESSIONTREE_CACHE_DIR = cache;
const env = cliEnv(ws.dir, { PI_CODING_AGENT_DIR: piDir });

const { user, assistant } = messageMaker();

/** A session in `dir`; `large` makes it big enough (over 1 MiB) to be resumed through its index. */
function writeSession(dir: string, large: boolean): { id: string; path: string } {
  mkdirSync(dir, { recursive: true });
  const sm = SessionManager.create(CWD, dir);
  const turns = large ? 160 : 3;
  for (let i = 0; i < turns; i++) {
    const asked = sm.appendMessage(user(`question ${i} ${large ? "x".repeat(4000) : ""}`));
    sm.appendMessage(assistant(`answer ${i} ${large ? "y".repeat(3000) : ""}`));
    // A compaction midway: a large file with none is read whole and gets no index to cache.
    if (large && i === turns / 2) sm.appendCompaction("the first half, summarized", asked, 100_000);
  }
  const result = { id: sm.getSessionId(), path: sm.getSessionFile() as string };
  sm.close();
  return result;
}

/** Every file and folder under `dir` with its kind, size and mtime: what a trace would change. */
function listing(dir: string): string[] {
  const lines: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      const stats = statSync(path);
      lines.push(
        `${relative(dir, path)} ${stats.isDirectory() ? "dir" : "file"} ${stats.size} ${stats.mtimeMs}`,
      );
      if (stats.isDirectory()) walk(path);
    }
  };
  const top = statSync(dir);
  lines.push(`. ${top.size} ${top.mtimeMs}`);
  walk(dir);
  return lines;
}

const ours = writeSession(sessionDirFor(ws.root, CWD, "sessiontree"), true);
const small = writeSession(sessionDirFor(ws.root, CWD, "sessiontree"), false);
const pi = writeSession(join(sessionsDir(piDir), encodeCwdPi(CWD)), true);

describe("read-only commands and the viewer write nothing beside the sessions", () => {
  const before = { ours: listing(ws.root), pi: listing(piDir) };
  const reads = [
    ["ls", "--all"],
    ["ls", "--all", "--search", "question"],
    ["tree", ours.id],
    ["show", ours.id],
    ["show", small.id, "--json"],
    ["show", pi.id, "--pi"],
    ["ls", "--all", "--pi"],
    ["tree", pi.id, "--pi"],
    ["fsck"],
    ["fsck", "--pi"],
    ["export", ours.id, "--md"],
    ["export", ours.id, "--format", "json"],
    ["export", pi.id, "--html", "--pi"],
  ];
  const results = runScenario(
    ws.dir,
    reads.map((args) => ({ args, env })),
  );

  it("every command succeeds", () => {
    results.forEach((r, i) => {
      assert.equal(r.code, 0, `${reads[i]?.join(" ")}: ${r.stderr}`);
    });
  });

  it("the viewer lists and opens every session", async () => {
    const source = createLocalSource({ root: ws.root, piDir });
    const sessions = await source.listSessions();
    assert.deepEqual(sessions.map((s) => s.id).sort(), [ours.id, small.id, pi.id].sort());
    for (const s of sessions) assert.equal((await source.loadSession(s.key)).header.id, s.id);
  });

  it("the folders are as they were: same names, sizes and mtimes", () => {
    assert.deepEqual(listing(ws.root), before.ours);
    assert.deepEqual(listing(piDir), before.pi);
  });

  it("the caches went to the cache directory, private to the user", () => {
    const indexes = readdirSync(join(cache, "index"));
    assert.ok(indexes.length >= 2, `indexes of both large sessions: ${indexes.join(", ")}`);
    assert.ok(readdirSync(join(cache, "catalog")).length >= 2, "a catalog per listed folder");
    for (const line of listing(cache)) {
      const [path, kind] = line.split(" ");
      if (path === "." || !path) continue;
      const mode = statSync(join(cache, path)).mode & 0o777;
      assert.equal(mode, kind === "dir" ? 0o700 : 0o600, path);
    }
  });
});

describe("a write command leaves no lease file", () => {
  it("label and name take the writer lease and remove its file when done", () => {
    const folder = sessionDirFor(ws.root, CWD, "sessiontree");
    const target = SessionManager.open(small.path).getLeafId() as string;
    const [label, name] = runScenario(ws.dir, [
      { args: ["label", target, "checked", "-s", small.id], env },
      { args: ["name", "a name", "-s", small.id], env },
    ]);
    assert.equal(label?.code, 0, label?.stderr);
    assert.equal(name?.code, 0, name?.stderr);
    const leases = readdirSync(folder).filter((n) => n.endsWith(".lease"));
    assert.deepEqual(leases, []);
    assert.match(SessionManager.open(small.path).getSessionName() ?? "", /a name/);
  });
});
