import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { SessionTreeApiError, SessionTreeClient } from "../../src/client/index.js";
import { SessionTree } from "../../src/core/tree.js";
import { createApiKey, openServiceDb } from "../../src/server/index.js";
import { Random } from "../support/random.js";
import { freshPgDatabase, userMessage } from "./helpers.js";

const CLIENTS = 50;
const OPS_PER_CLIENT = 8;
const SESSIONS = 3;

interface Ack {
  client: number;
  session: string;
  revision: number;
  appended: string[];
}

async function startProcess(database: string): Promise<{ child: ChildProcess; url: string }> {
  const script = join(import.meta.dirname, "cli-child.ts");
  const args = [
    "--import",
    "tsx",
    script,
    "serve",
    "--port",
    "0",
    "--database",
    database,
    "--rate-limit",
    "0",
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout?.setEncoding("utf8");
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
    child.stdout?.on("data", (chunk: string) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
  });
  return { child, url };
}

/**
 * One client: appends (unconditional, or If-Match with re-read on 412) and leaf moves, on random
 * sessions. Its choices are seeded by its number, so which entry a leaf move targets replays (the
 * interleaving between clients, and the retry jitter, still vary from run to run).
 */
async function runClient(
  n: number,
  client: SessionTreeClient,
  sessions: string[],
  acks: Ack[],
): Promise<void> {
  const rng = new Random(n);
  const known = new Map<string, string[]>(sessions.map((s) => [s, []]));
  for (let op = 0; op < OPS_PER_CLIENT; op++) {
    const session = sessions[(n + op) % sessions.length] as string;
    const mine = known.get(session) as string[];
    if (op % 4 === 3 && mine.length > 0) {
      const target = rng.pick(mine);
      const moved = await client.setLeaf(session, target);
      acks.push({ client: n, session, revision: moved.revision, appended: [] });
      continue;
    }
    const entries = [userMessage(`c${n} op${op}`)];
    if (n % 2 === 0) {
      const result = await client.append(session, entries);
      mine.push(...result.appended);
      acks.push({ client: n, session, revision: result.revision, appended: result.appended });
      continue;
    }
    for (let attempt = 0; ; attempt++) {
      const { revision } = await client.getSession(session);
      try {
        const result = await client.append(session, entries, { ifMatch: revision });
        mine.push(...result.appended);
        acks.push({ client: n, session, revision: result.revision, appended: result.appended });
        break;
      } catch (error) {
        if (!(error instanceof SessionTreeApiError && error.status === 412) || attempt > 200) throw error;
        // As a polite client would: back off with jitter before re-reading.
        await sleep(Math.random() * Math.min(50, 2 * (attempt + 1)));
      }
    }
  }
}

async function readAll(client: SessionTreeClient, session: string) {
  const entries = [];
  let after = 0;
  for (;;) {
    const page = await client.readEntries(session, { after, limit: 500 });
    entries.push(...page.entries);
    if (page.nextAfter === null) return entries;
    after = page.nextAfter;
  }
}

describe("two server processes over one PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof freshPgDatabase>>;
  const children: ChildProcess[] = [];
  let urls: string[] = [];
  let token: string;

  before(async () => {
    db = await freshPgDatabase();
    const started = await Promise.all([startProcess(db.url), startProcess(db.url)]);
    children.push(...started.map((s) => s.child));
    urls = started.map((s) => s.url);
    const service = await openServiceDb({ database: db.url });
    token = (await createApiKey(service, "racer", "race")).key;
    await service.close();
  });

  after(async () => {
    for (const child of children) {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await once(child, "exit");
      }
    }
    await db.drop();
  });

  it(`keeps every acknowledged write of ${CLIENTS} racing clients, with strictly increasing revisions`, async () => {
    const clients = Array.from(
      { length: CLIENTS },
      (_, i) => new SessionTreeClient({ baseUrl: urls[i % 2] as string, token }),
    );
    const first = clients[0] as SessionTreeClient;
    const sessions: string[] = [];
    for (let i = 0; i < SESSIONS; i++) sessions.push((await first.createSession({ name: `race ${i}` })).id);
    const acks: Ack[] = [];
    await Promise.all(clients.map((client, n) => runClient(n, client, sessions, acks)));
    assert.equal(acks.length, CLIENTS * OPS_PER_CLIENT);

    for (const session of sessions) {
      const mine = acks.filter((a) => a.session === session);
      // A leaf move to where the leaf already is changes nothing and makes no revision (the store's
      // contract), so only writes that appended something must each have a revision of their own.
      const changing = mine.filter((a) => a.appended.length > 0).map((a) => a.revision);
      assert.equal(new Set(changing).size, changing.length, "no two acknowledged appends share a revision");
      for (let n = 0; n < CLIENTS; n++) {
        const all = mine.filter((a) => a.client === n);
        assert.ok(
          all.every((a, i) => i === 0 || a.revision >= (all[i - 1] as Ack).revision),
          `client ${n}: revisions never go back`,
        );
        const appends = all.filter((a) => a.appended.length > 0).map((a) => a.revision);
        assert.ok(
          appends.every((r, i) => i === 0 || r > (appends[i - 1] as number)),
          `client ${n}: revisions of its appends increase`,
        );
      }
      const summary = await first.getSession(session);
      assert.ok(summary.revision >= Math.max(...mine.map((a) => a.revision)));

      const entries = await readAll(first, session);
      const ids = new Set(entries.map((e) => e.id));
      const acknowledged = mine.flatMap((a) => a.appended);
      assert.ok(acknowledged.length > 0);
      assert.deepEqual(
        acknowledged.filter((id) => !ids.has(id)),
        [],
        "every acknowledged entry is stored",
      );
      assert.equal(entries.length, acknowledged.length, "and nothing else");

      const tree = new SessionTree();
      for (const entry of entries) tree.load(entry as Parameters<SessionTree["load"]>[0]);
      tree.analyze();
      assert.deepEqual(tree.getIssues(), [], "no dangling parents, no cycles");
      assert.equal(tree.getChildren(null).length, 1, "one root: every append chained onto a real leaf");
      assert.ok(summary.leafId !== null && ids.has(summary.leafId), "the leaf is a stored entry");
    }
  });
});
