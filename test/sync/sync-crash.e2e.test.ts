import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { SessionTreeClient } from "../../src/client/client.js";
import { createApiKey, openServiceDb } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/session-manager.js";
import { countingFetch } from "../../src/sync/counting-fetch.js";
import { credentialIdOf } from "../../src/sync/credentials.js";
import { syncRoot } from "../../src/sync/sync.js";
import { BACKENDS, freshPgDatabase } from "../server/helpers.js";
import { messageMaker } from "../support/messages.js";
import { type ServeChild, startServeChild } from "../support/serve-child.js";
import { filesById, openInPi, readFile, tempDir } from "./helpers.js";

const _CLI = join(import.meta.dirname, "..", "server", "cli-child.ts");
const SYNC = join(import.meta.dirname, "sync-child.ts");
const ROUNDS = 3;
const m = messageMaker();

/** A deterministic generator per backend, so a failure can be replayed (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The service for one round: SQLite or PostgreSQL at `location`. */
function startServe(location: string[]): Promise<ServeChild> {
  return startServeChild(["--rate-limit", "0", "--no-access-log", ...location]);
}

/** How long the last child sync left to finish took from its start: the window kills aim at. */
let lastRunMs = 300;

/** One local copy: a root, its own cache (where the sync state lives) and config folder. */
interface Copy {
  name: string;
  root: string;
  cache: string;
}

/**
 * `sessiontree --root R sync` in a child process, SIGKILLed `killAfterMs` after it started
 * (undefined: left to finish). Answers whether it was killed before it finished.
 */
async function syncChild(copy: Copy, url: string, key: string, killAfterMs: number | undefined) {
  const env = {
    ...process.env,
    SESSIONTREE_API_KEY: key,
    SESSIONTREE_CACHE_DIR: copy.cache,
    SESSIONTREE_CONFIG_DIR: copy.cache,
  };
  const args = ["--import", "tsx", SYNC, "--root", copy.root, "sync", "--server", url, "--json"];
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    stdout += chunk;
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  const started = new Promise<void>((resolve) =>
    child.stderr?.on("data", (chunk: string) => {
      stderr += chunk;
      if (stderr.includes("started")) resolve();
    }),
  );
  const exited = once(child, "exit") as Promise<[number | null, string | null]>;
  if (killAfterMs === undefined) {
    await Promise.race([started, exited]);
    const from = Date.now();
    const [code] = await exited;
    lastRunMs = Date.now() - from;
    assert.equal(code, 0, `sync of ${copy.name} failed: ${stderr}`);
    return { killed: false, stdout };
  }
  await Promise.race([started, exited]);
  await sleep(killAfterMs);
  const killed = child.exitCode === null;
  child.kill("SIGKILL");
  const [code, signal] = await exited;
  assert.ok(signal === "SIGKILL" || code === 0, `sync of ${copy.name} failed: ${stderr}`);
  return { killed: killed && signal === "SIGKILL", stdout };
}

/**
 * A sync in this process, with the copy's cache folder (so the same state file as its children):
 * the syncs nobody kills, without a process start each.
 */
async function syncInProcess(copy: Copy, url: string, key: string) {
  const saved = process.env.SESSIONTREE_CACHE_DIR;
  process.env.SESSIONTREE_CACHE_DIR = copy.cache;
  try {
    const counted = countingFetch();
    const remote = new SessionTreeClient({ baseUrl: url, token: key, fetch: counted.fetch });
    const report = await syncRoot({
      root: copy.root,
      remote,
      server: url,
      credentialId: credentialIdOf(key),
    });
    assert.equal(report.errors, 0, JSON.stringify(report.changed));
    return { report, bytes: counted.count };
  } finally {
    if (saved === undefined) delete process.env.SESSIONTREE_CACHE_DIR;
    else process.env.SESSIONTREE_CACHE_DIR = saved;
  }
}

/** Random work on a copy: appends, rewinds with a fork, new sessions (through our SessionManager). */
function randomWork(copy: Copy, rnd: () => number, round: number): void {
  const files = [...filesById(copy.root).values()];
  if (files.length < 3 || rnd() < 0.3) {
    const manager = SessionManager.create(`/work/${Math.floor(rnd() * 3)}`, undefined, { root: copy.root });
    manager.appendMessage(m.user(`${copy.name} new session, round ${round}`));
    manager.close();
  }
  for (const path of files) {
    if (rnd() < 0.4) continue;
    const manager = SessionManager.open(path, undefined, undefined, { root: copy.root });
    const entries = manager.getEntries();
    if (rnd() < 0.3 && entries.length > 1) {
      manager.branch((entries[Math.floor(rnd() * entries.length)] as { id: string }).id);
    }
    const turns = 1 + Math.floor(rnd() * 12);
    for (let i = 0; i < turns; i++) {
      manager.appendMessage(m.user(`${copy.name} r${round} q${i} ${"x".repeat(Math.floor(rnd() * 400))}`));
      manager.appendMessage(m.assistant(`${copy.name} r${round} a${i}`));
    }
    manager.close();
  }
}

/** The ids on each line of a file (leaf markers included): a line written twice shows here. */
function lineIds(path: string): string[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .slice(1)
    .filter((line) => line.trim())
    .map((line) => (JSON.parse(line) as { id: string }).id);
}

for (const backend of BACKENDS) {
  describe(`sessiontree sync with SIGKILLs (${backend})`, () => {
    const dirs = tempDir(`st-sync-crash-${backend}-`);
    let location: string[];
    let dropDb: () => Promise<void> = async () => {};
    let key: string;
    let server: ServeChild;

    before(async () => {
      if (backend === "postgres") {
        const db = await freshPgDatabase();
        location = ["--database", db.url];
        dropDb = db.drop;
      } else {
        location = ["--data", join(dirs.path, "data")];
      }
      const service = await openServiceDb(
        backend === "postgres" ? { database: location[1] } : { data: location[1] },
      );
      key = (await createApiKey(service, "alice", "sync")).key;
      await service.close();
      server = await startServe(location);
    });
    after(async () => {
      await server.kill();
      await dropDb();
      dirs.cleanup();
    });

    it("converges: every entry everywhere, once, every file opens in pi", async (t) => {
      const rnd = random(backend === "sqlite" ? 11 : 29);
      const copies: Copy[] = ["A", "B"].map((name) => ({
        name,
        root: join(dirs.path, name),
        cache: join(dirs.path, `${name}-cache`),
      }));
      // B is a pi agent directory: sessions pulled there go to pi's folder names.
      mkdirSync(copies[1]?.root as string, { recursive: true });
      writeFileSync(join(copies[1]?.root as string, "settings.json"), "{}\n");
      let kills = 0;
      // A whole run first (A's first push): how long one takes from the process's start, so the
      // kills below land inside a run.
      randomWork(copies[0] as Copy, rnd, 0);
      await syncChild(copies[0] as Copy, server.url, key, undefined);
      t.diagnostic(`a child sync takes ${lastRunMs} ms after it started`);
      for (let round = 0; round < ROUNDS; round++) {
        for (const copy of copies) randomWork(copy, rnd, round);
        // Both copies sync at once (two machines), and both are killed at random points.
        const delays = copies.map(() => Math.floor(rnd() * lastRunMs));
        const runs = await Promise.all(copies.map((copy, i) => syncChild(copy, server.url, key, delays[i])));
        kills += runs.filter((run) => run.killed).length;
        for (const copy of copies) if (rnd() < 0.5) await syncInProcess(copy, server.url, key);
      }
      // Settle: A sends, B takes A's and sends its own, A takes B's.
      for (const copy of [copies[0], copies[1], copies[0]] as Copy[])
        await syncInProcess(copy, server.url, key);
      t.diagnostic(`${kills} sync(s) killed mid-way`);
      assert.ok(kills > 0, "some syncs were killed before they finished");

      const [a, b] = copies as [Copy, Copy];
      const filesA = filesById(a.root);
      const filesB = filesById(b.root);
      assert.deepEqual([...filesA.keys()].sort(), [...filesB.keys()].sort(), "the same sessions on both");
      const listed = await (
        await fetch(`${server.url}/v1/sessions?limit=1000`, { headers: { authorization: `Bearer ${key}` } })
      ).json();
      assert.deepEqual(
        (listed.items as Array<{ id: string }>).map((s) => s.id).sort(),
        [...filesA.keys()].sort(),
        "the same sessions on the service",
      );
      for (const [id, pathA] of filesA) {
        const pathB = filesB.get(id) as string;
        assert.ok(pathB.includes("/sessions/--work-"), `${pathB} is in pi's folder naming`);
        const remote = await remoteIds(server.url, key, id);
        const idsA = readFile(pathA).entries.map((e) => e.id);
        const idsB = readFile(pathB).entries.map((e) => e.id);
        assert.deepEqual(new Set(idsA), new Set(remote), `${id}: A holds every entry of the service`);
        assert.deepEqual(new Set(idsB), new Set(remote), `${id}: B holds every entry of the service`);
        for (const path of [pathA, pathB]) {
          const ids = lineIds(path);
          assert.equal(new Set(ids).size, ids.length, `${path}: no entry written twice`);
          const ours = SessionManager.open(path);
          const pi = openInPi(path);
          assert.equal(pi.leaf, ours.getLeafId(), `${path}: pi opens at our leaf`);
          assert.equal(pi.messages, ours.buildSessionContext().messages.length, `${path}: pi's context`);
          ours.close();
        }
        assert.equal(new Set(remote).size, remote.length, `${id}: no entry stored twice on the service`);
      }
      // And the next sync of each copy only compares.
      for (const copy of copies) {
        const again = await syncInProcess(copy, server.url, key);
        assert.equal(again.report.changed.length, 0, `${copy.name}: nothing left to do`);
        assert.equal(again.bytes.requests, 1, `${copy.name}: one request`);
      }
    });
  });
}

async function remoteIds(url: string, key: string, id: string): Promise<string[]> {
  const ids: string[] = [];
  for (let after = 0; ; ) {
    const page = await (
      await fetch(`${url}/v1/sessions/${id}/entries?after=${after}&limit=1000`, {
        headers: { authorization: `Bearer ${key}` },
      })
    ).json();
    ids.push(...(page.entries as Array<{ id: string }>).map((e) => e.id));
    if (page.nextAfter === null) return ids;
    after = page.nextAfter;
  }
}
