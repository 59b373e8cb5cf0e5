import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import type { SessionEntry } from "../../src/core/entry.js";
import { SessionManager } from "../../src/session/session-manager.js";
import type { BlobInfo, BlobRef, BlobStore } from "../../src/store/blob/blob-store.js";
import { FsBlobStore } from "../../src/store/blob/fs-blob-store.js";
import { SqliteStore } from "../../src/store/sqlite/index.js";
import { messageMaker } from "../support/messages.js";
import { filesById, makeSession, readFile, syncOnce, syncWorld, tempDir } from "./helpers.js";

// Faults around `sessiontree sync` and the object storage behind the service: regressions for the
// defects found (each failed before its fix) and pins of the behaviour verified under faults.

const m = messageMaker();

function append(path: string, root: string, text: string, branchTo?: string): void {
  const manager = SessionManager.open(path, undefined, undefined, { root });
  if (branchTo) manager.branch(branchTo);
  manager.appendMessage(m.user(text));
  manager.close();
}

/** Every line of a file after the header, leaf markers included. */
function lines(path: string): Array<{ id: string; type: string; customType?: string }> {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => JSON.parse(line));
}

const messageIds = (entries: ReadonlyArray<{ id: string; type: string }>) =>
  entries
    .filter((e) => e.type === "message")
    .map((e) => e.id)
    .sort();

describe("sync under faults: what once went wrong", () => {
  const world = syncWorld("st-faults-hunt-");

  async function serviceEntries(id: string): Promise<Array<{ id: string; type: string }>> {
    const answer = await world.server.call("GET", `/v1/sessions/${id}/entries?limit=5000`, {
      key: world.key,
    });
    assert.equal(answer.status, 200);
    return answer.json.entries;
  }

  it("pulling into a root whose session of the same id has another header merges nothing (header_mismatch)", async () => {
    const rootA = join(world.dir, "hm-a");
    const rootB = join(world.dir, "hm-b");
    const made = makeSession(rootA, "/work/a", 1);
    await syncOnce(rootA, world.server.url, world.key, join(world.dir, "hm-sa"));
    // Another session, elsewhere, that happens to carry the same id (other cwd, other timestamp).
    const other = makeSession(rootB, "/work/b", 1);
    const [head, ...rest] = readFileSync(other.path, "utf8").split("\n");
    writeFileSync(
      other.path,
      [JSON.stringify({ ...JSON.parse(head as string), id: made.id }), ...rest].join("\n"),
    );
    const before = readFileSync(other.path, "utf8");

    const run = await syncOnce(rootB, world.server.url, world.key, join(world.dir, "hm-sb"));
    const report = run.report.changed.find((c) => c.id === made.id);
    assert.equal(report?.error?.code, "header_mismatch", "docs/sync.md: reported as header_mismatch");
    assert.equal(readFileSync(other.path, "utf8"), before, "the local file is left alone");
    assert.deepEqual(messageIds(await serviceEntries(made.id)), messageIds(readFile(made.path).entries));
  });

  for (const syncedWhileGone of [false, true]) {
    it(`a session purged on the service and pushed again from an older copy merges by union with a copy that saw it (synced while gone: ${syncedWhileGone})`, async () => {
      const tag = `pg-${syncedWhileGone}`;
      const rootA = join(world.dir, `${tag}-a`);
      const rootD = join(world.dir, `${tag}-d`);
      const stateA = join(world.dir, `${tag}-sa`);
      const stateD = join(world.dir, `${tag}-sd`);
      const made = makeSession(rootA, "/w", 2);
      // D holds a copy of the file as it is now (4 entries) and has never synced.
      const pathD = made.path.replace(rootA, rootD);
      mkdirSync(dirname(pathD), { recursive: true });
      copyFileSync(made.path, pathD);
      append(made.path, rootA, "A goes on");
      await syncOnce(rootA, world.server.url, world.key, stateA);
      append(pathD, rootD, "only on D");
      assert.equal(
        (await world.server.call("DELETE", `/v1/sessions/${made.id}`, { key: world.key })).status,
        200,
      );
      const purge = await world.server.call("POST", `/v1/sessions/${made.id}/purge`, { key: world.key });
      assert.ok(purge.status < 300);
      if (syncedWhileGone) await syncOnce(rootA, world.server.url, world.key, stateA);
      // "A session purged on the service is pushed again only by a copy whose state never saw it."
      await syncOnce(rootD, world.server.url, world.key, stateD);
      append(made.path, rootA, "A after the purge");
      for (let i = 0; i < 2; i++) {
        const runA = await syncOnce(rootA, world.server.url, world.key, stateA);
        assert.equal(runA.report.errors, 0, JSON.stringify(runA.report.changed.map((c) => c.error)));
        await syncOnce(rootD, world.server.url, world.key, stateD);
      }
      const union = messageIds(await serviceEntries(made.id));
      assert.equal(union.length, 4 + 1 + 1 + 1, "the service has every copy's entries");
      assert.deepEqual(messageIds(readFile(made.path).entries), union);
      assert.deepEqual(messageIds(readFile(pathD).entries), union);
    });
  }
});

describe("sync under faults: verified behaviour", () => {
  const world = syncWorld("st-faults-ok-");

  it("two roots syncing one session at once while both append (and fork) converge: no loss, no duplicate", async () => {
    const made = makeSession(world.rootA, "/w", 1);
    await syncOnce(world.rootA, world.server.url, world.key, world.stateA);
    await syncOnce(world.rootB, world.server.url, world.key, world.stateB);
    const pathB = filesById(world.rootB).get(made.id) as string;
    const root = readFile(pathB).entries[0]?.id as string;
    for (let round = 0; round < 6; round++) {
      append(made.path, world.rootA, `a${round}`);
      append(pathB, world.rootB, `b${round}`, round % 3 === 0 ? root : undefined);
      const late = (async () => {
        await new Promise((resolve) => setTimeout(resolve, round % 3));
        append(made.path, world.rootA, `late${round}`);
      })();
      await Promise.all([
        syncOnce(world.rootA, world.server.url, world.key, world.stateA),
        syncOnce(world.rootB, world.server.url, world.key, world.stateB),
        late,
      ]);
    }
    for (let i = 0; i < 2; i++) {
      await syncOnce(world.rootA, world.server.url, world.key, world.stateA);
      await syncOnce(world.rootB, world.server.url, world.key, world.stateB);
    }
    const answer = await world.server.call("GET", `/v1/sessions/${made.id}/entries?limit=5000`, {
      key: world.key,
    });
    const onService = answer.json.entries as Array<{ id: string; type: string }>;
    for (const all of [lines(made.path), lines(pathB), onService])
      assert.equal(new Set(all.map((e) => e.id)).size, all.length, "no id twice");
    const union = messageIds(onService);
    assert.equal(union.length, 2 + 6 * 3);
    assert.deepEqual(messageIds(lines(made.path)), union);
    assert.deepEqual(messageIds(lines(pathB)), union);
  });

  it("deleted on the service: local appends wait; restored, they are pushed and the copies meet", async () => {
    const made = makeSession(world.rootA, "/w2", 1);
    await syncOnce(world.rootA, world.server.url, world.key, world.stateA);
    await syncOnce(world.rootB, world.server.url, world.key, world.stateB);
    await world.server.call("DELETE", `/v1/sessions/${made.id}`, { key: world.key });
    append(made.path, world.rootA, "while deleted");
    const gone = await syncOnce(world.rootA, world.server.url, world.key, world.stateA);
    assert.deepEqual(gone.report.gone, [made.id]);
    assert.equal(gone.report.pushed, 0);
    append(made.path, world.rootA, "while deleted, again");
    await world.server.call("POST", `/v1/sessions/${made.id}/restore`, { key: world.key });
    const back = await syncOnce(world.rootA, world.server.url, world.key, world.stateA);
    assert.equal(back.report.pushed, 2);
    await syncOnce(world.rootB, world.server.url, world.key, world.stateB);
    const pathB = filesById(world.rootB).get(made.id) as string;
    assert.deepEqual(messageIds(readFile(pathB).entries), messageIds(readFile(made.path).entries));
    assert.equal(readFile(pathB).leaf, readFile(made.path).leaf);
  });

  it("a local file with a torn last line takes the pulled entries whole", async () => {
    const made = makeSession(world.rootA, "/w3", 1);
    await syncOnce(world.rootA, world.server.url, world.key, world.stateA);
    await syncOnce(world.rootB, world.server.url, world.key, world.stateB);
    const pathB = filesById(world.rootB).get(made.id) as string;
    append(pathB, world.rootB, "from B");
    await syncOnce(world.rootB, world.server.url, world.key, world.stateB);
    appendFileSync(made.path, '{"type":"message","id":"torn0001","parentId":');
    const run = await syncOnce(world.rootA, world.server.url, world.key, world.stateA);
    assert.equal(run.report.errors, 0);
    assert.equal(run.report.pulled, 1);
    assert.deepEqual(messageIds(readFile(made.path).entries), messageIds(readFile(pathB).entries));
    for (const line of lines(made.path)) assert.notEqual(line.id, "torn0001");
  });
});

/** A blob store whose calls can be made to fail or wait, over the filesystem store. */
class FaultyBlobs implements BlobStore {
  failPut = 0;
  failDelete = 0;
  slowMs = 0;
  constructor(readonly inner: FsBlobStore) {}
  private async pause() {
    if (this.slowMs > 0) await new Promise((resolve) => setTimeout(resolve, this.slowMs));
  }
  async put(owner: string, bytes: Uint8Array): Promise<BlobRef> {
    await this.pause();
    if (this.failPut > 0) {
      this.failPut--;
      throw Object.assign(new Error("InternalError"), { $metadata: { httpStatusCode: 500 } });
    }
    return this.inner.put(owner, bytes);
  }
  get(owner: string, sha256: string) {
    return this.inner.get(owner, sha256);
  }
  async has(owner: string, sha256: string) {
    await this.pause();
    return this.inner.has(owner, sha256);
  }
  async delete(owner: string, sha256: string) {
    await this.pause();
    if (this.failDelete > 0) {
      this.failDelete--;
      throw Object.assign(new Error("InternalError"), { $metadata: { httpStatusCode: 500 } });
    }
    return this.inner.delete(owner, sha256);
  }
  list(owner?: string): AsyncIterable<BlobInfo> {
    return this.inner.list(owner);
  }
  close() {
    return this.inner.close();
  }
}

function bigEntry(text: string, parentId: string | null = null): SessionEntry {
  return {
    type: "message",
    id: randomUUID().slice(0, 8),
    parentId,
    timestamp: new Date().toISOString(),
    message: { role: "user", content: [{ type: "text", text }], timestamp: 1 },
  } as SessionEntry;
}

async function blobStoreWorld(leaseMs = 600_000) {
  const dir = tempDir("st-faults-blobs-");
  const blobs = new FaultyBlobs(new FsBlobStore(join(dir.path, "blobs")));
  const store = new SqliteStore({
    path: join(dir.path, "db.sqlite"),
    blobs: { store: blobs, graceMs: 0, leaseMs },
  });
  await store.init();
  const count = async () => {
    let n = 0;
    for await (const _ of blobs.list()) n++;
    return n;
  };
  return {
    blobs,
    store,
    count,
    async close() {
      await store.close();
      dir.cleanup();
    },
  };
}

describe("object storage under faults", () => {
  /** A session holding one payload, deleted and purged while the collection's object delete fails. */
  async function purgedWithFailedDelete(w: Awaited<ReturnType<typeof blobStoreWorld>>, text: string) {
    const s1 = await w.store.createSession("alice", { cwd: "/w" });
    await w.store.appendEntries("alice", s1.id, [bigEntry(text)]);
    w.blobs.failDelete = 1;
    await w.store.deleteSession("alice", s1.id);
    await w.store.purgeSession("alice", s1.id); // its collection's delete fails (swallowed)
    assert.equal(await w.count(), 1);
  }

  it("a collection whose object delete failed leaves the blob to the next collection", async () => {
    const w = await blobStoreWorld();
    try {
      await purgedWithFailedDelete(w, "p".repeat(100_000));
      await w.store.blobs?.collect();
      assert.equal(await w.count(), 0, "docs/server.md: collected by the next purge or collection");
    } finally {
      await w.close();
    }
  });

  it("an append of a payload whose collection's delete failed does not wait out the lease", async () => {
    const w = await blobStoreWorld(3_000);
    try {
      const text = "q".repeat(100_000);
      await purgedWithFailedDelete(w, text);
      const s2 = await w.store.createSession("alice", { cwd: "/w" });
      const started = Date.now();
      await w.store.appendEntries("alice", s2.id, [bigEntry(text)]);
      const took = Date.now() - started;
      assert.ok(took < 1_500, `the append waited ${took} ms for the mark of a collection that had returned`);
      assert.ok(JSON.stringify(await w.store.readEntries("alice", s2.id)).includes(text));
    } finally {
      await w.close();
    }
  });

  it("an upload that fails stores nothing; the retry stores the entry whole", async () => {
    const w = await blobStoreWorld();
    try {
      const text = "u".repeat(100_000);
      const { id } = await w.store.createSession("alice", { cwd: "/w" });
      const entry = bigEntry(text);
      w.blobs.failPut = 1;
      await assert.rejects(w.store.appendEntries("alice", id, [entry]));
      assert.equal((await w.store.readEntries("alice", id)).entries.length, 0);
      await w.store.appendEntries("alice", id, [entry]);
      await w.store.appendEntries("alice", id, [entry]); // a pure retry
      const read = await w.store.readEntries("alice", id);
      assert.equal(read.entries.length, 1);
      assert.ok(JSON.stringify(read.entries[0]).includes(text));
    } finally {
      await w.close();
    }
  });

  it("a blob missing or damaged in storage reads as blob_not_found / blob_corrupt, never as other bytes", async () => {
    const w = await blobStoreWorld();
    try {
      const { id } = await w.store.createSession("alice", { cwd: "/w" });
      await w.store.appendEntries("alice", id, [bigEntry("c".repeat(100_000))]);
      let blob: BlobInfo | undefined;
      for await (const info of w.blobs.list()) blob = info;
      assert.ok(blob);
      const path = join(w.blobs.inner.root, ...blobPathParts(blob));
      const bytes = readFileSync(path);
      const at = bytes.length >> 1;
      bytes[at] = (bytes[at] as number) ^ 0xff;
      writeFileSync(path, bytes);
      await assert.rejects(w.store.readEntries("alice", id), { code: "blob_corrupt" });
      await w.blobs.inner.delete(blob.owner, blob.sha256);
      await assert.rejects(w.store.readEntries("alice", id), { code: "blob_not_found" });
    } finally {
      await w.close();
    }
  });

  it("a collection racing appends of the same bytes in another session never deletes a referenced blob", async () => {
    const w = await blobStoreWorld();
    try {
      for (let i = 0; i < 8; i++) {
        const text = `dedup-${i % 2}-${"d".repeat(70_000)}`;
        const s1 = await w.store.createSession("alice", { cwd: "/w" });
        await w.store.appendEntries("alice", s1.id, [bigEntry(text)]);
        const s2 = await w.store.createSession("alice", { cwd: "/w" });
        w.blobs.slowMs = i % 2 === 0 ? 0 : 5;
        await w.store.deleteSession("alice", s1.id);
        const wait = new Promise((resolve) => setTimeout(resolve, (i * 3) % 10));
        await Promise.all([
          w.store.purgeSession("alice", s1.id),
          wait.then(() => w.store.appendEntries("alice", s2.id, [bigEntry(text)])),
          wait.then(() => w.store.blobs?.collect()),
        ]);
        w.blobs.slowMs = 0;
        assert.ok(JSON.stringify(await w.store.readEntries("alice", s2.id)).includes(text), `round ${i}`);
        await w.store.deleteSession("alice", s2.id);
        await w.store.purgeSession("alice", s2.id);
      }
      await w.store.blobs?.collect();
      assert.equal(await w.count(), 0, "a purge leaves nothing in the bucket");
    } finally {
      await w.close();
    }
  });

  it("archive and restore keep storage positions, the leaf and the payloads; purge then empties the bucket", async () => {
    const w = await blobStoreWorld();
    try {
      const { id } = await w.store.createSession("alice", { cwd: "/w" });
      const a = bigEntry("a".repeat(100_000));
      const b = bigEntry("b", a.id);
      const c = bigEntry("c-branch", a.id);
      const d = bigEntry("d", b.id);
      await w.store.appendEntries("alice", id, [a, b]);
      await w.store.appendEntries("alice", id, [c]);
      await w.store.appendEntries("alice", id, [d], { moveLeaf: false });
      await w.store.setLeaf("alice", id, b.id);
      const page = async () => {
        const first = await w.store.readEntries("alice", id, { after: 0, limit: 2 });
        const rest = await w.store.readEntries("alice", id, { after: first.nextAfter ?? 0, limit: 10 });
        return [...first.entries, ...rest.entries].map((e) => e.id);
      };
      const before = await page();
      const summary = await w.store.getSummary("alice", id);
      w.blobs.failPut = 1;
      await assert.rejects(w.store.blobs?.archive(new Date(Date.now() + 1000)) as Promise<unknown>);
      assert.equal((await w.store.getSummary("alice", id)).archivedAt, undefined);
      const archived = await w.store.blobs?.archive(new Date(Date.now() + 1000));
      assert.equal(archived?.archived.length, 1);
      await w.store.blobs?.collect();
      assert.deepEqual(await page(), before);
      const after = await w.store.getSummary("alice", id);
      assert.equal(after.leafId, b.id);
      assert.equal(after.revision, summary.revision);
      assert.ok(JSON.stringify(await w.store.readEntries("alice", id)).includes("a".repeat(100_000)));
      await w.store.deleteSession("alice", id);
      await w.store.purgeSession("alice", id);
      assert.equal(await w.count(), 0);
    } finally {
      await w.close();
    }
  });
});

function blobPathParts(blob: BlobInfo): string[] {
  return [`o-${Buffer.from(blob.owner, "utf8").toString("base64url")}`, blob.sha256.slice(0, 2), blob.sha256];
}
