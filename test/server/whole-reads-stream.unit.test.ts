// Whole-session reads that stream (issue 16.1): the export goes out a page at a time, byte for byte
// the file `exportJsonl` writes; it keeps its whole-read slot until its last byte; a label's target
// is checked with one lookup; large JSON answers go out in runs and still parse to the same answer.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { SessionEntry } from "../../src/core/entry.js";
import { HttpError } from "../../src/server/http/http-error.js";
import { enterStreamedRead, gatedRead } from "../../src/server/work/read-gate.js";
import { exportAnswer } from "../../src/server/work/whole-reads.js";
import { MemoryStore } from "../../src/store/memory/memory-store.js";
import type { SessionStore } from "../../src/store/store.js";
import { BACKENDS, startTestServer, type TestServer, userMessage } from "./helpers.js";

const OWNER = "alice";

async function collect(pieces: AsyncIterable<string>): Promise<string> {
  let text = "";
  for await (const piece of pieces) text += piece;
  return text;
}

/** An export with its leaf marker's stamp (a new id and time on every export) left out. */
function unstamped(jsonl: string): string {
  // The leaf marker an export writes is new each time: its id and timestamp go (pi's key order for
  // custom entries: type, customType, id, parentId, timestamp).
  return jsonl.replace(
    /"customType":"sessiontree\.leaf","id":"[^"]+","parentId":("[^"]+"),"timestamp":"[^"]+"/,
    '"customType":"sessiontree.leaf","parentId":$1',
  );
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

/** A session of `count` messages, rewound so its leaf is not the last entry (the export needs a marker). */
async function rewoundSession(store: SessionStore, count: number): Promise<string> {
  const { id } = await store.createSession(OWNER, { cwd: "/w" });
  const entries: SessionEntry[] = [];
  for (let i = 0; i < count; i++) {
    const message = { role: "user", content: `m${i}`, timestamp: i };
    const parentId = i === 0 ? null : `e${i - 1}`;
    entries.push({ type: "message", id: `e${i}`, parentId, timestamp: new Date(i).toISOString(), message });
  }
  await store.appendEntries(OWNER, id, entries);
  await store.setLeaf(OWNER, id, `e${Math.floor(count / 2)}`);
  return id;
}

describe("paged store reads (memory)", () => {
  const store = new MemoryStore();
  before(() => store.init());

  it("openPages gives every entry in storage order, pageSize at a time", async () => {
    const id = await rewoundSession(store, 23);
    const paged = await store.openPages(OWNER, id, { pageSize: 5 });
    const sizes: number[] = [];
    const ids: string[] = [];
    for await (const page of paged.pages) {
      sizes.push(page.length);
      ids.push(...page.map((entry) => entry.id));
    }
    assert.deepEqual(sizes, [5, 5, 5, 5, 3]);
    const whole = await store.loadSession(OWNER, id);
    assert.deepEqual(
      ids,
      whole.entries.map((entry) => entry.id),
    );
    assert.deepEqual(paged.header, whole.header);
    assert.equal(paged.summary.leafId, "e11");
  });

  it("reads the session as of its summary, whatever is appended meanwhile", async () => {
    const id = await rewoundSession(store, 10);
    const before = await store.exportJsonl(OWNER, id);
    const { summary, pieces } = await store.exportJsonlPages(OWNER, id, { pageSize: 3 });
    const iterator = pieces[Symbol.asyncIterator]();
    let text = ((await iterator.next()).value as string) + ((await iterator.next()).value as string);
    await store.appendEntries(OWNER, id, [
      {
        type: "message",
        id: "late",
        parentId: "e5",
        timestamp: new Date(99).toISOString(),
        message: { role: "user", content: "late", timestamp: 99 },
      },
    ] as SessionEntry[]);
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) text += next.value;
    assert.equal(
      unstamped(text),
      unstamped(before),
      "the export is the file at the revision it started from",
    );
    assert.equal(summary.revision + 1, (await store.getSummary(OWNER, id)).revision);
  });

  it("a missing session or entry, and another owner's session, answer as before", async () => {
    const id = await rewoundSession(store, 3);
    assert.equal(await store.hasEntry(OWNER, id, "e2"), true);
    assert.equal(await store.hasEntry(OWNER, id, "nope"), false);
    await assert.rejects(store.openPages("mallory", id), { code: "session_not_found" });
    await assert.rejects(store.exportJsonlPages(OWNER, "nope"), { code: "session_not_found" });
    await assert.rejects(store.hasEntry("mallory", id, "e1"), { code: "session_not_found" });
    await assert.rejects(store.openPages(OWNER, id, { pageSize: 0 }), { code: "invalid_argument" });
  });
});

for (const backend of BACKENDS) {
  describe(`streamed whole reads (${backend})`, () => {
    let t: TestServer;
    let key: string;
    let id: string;
    before(async () => {
      t = await startTestServer(backend, { limits: { maxHeavyReadsPerUser: 1 } });
      key = await t.key(OWNER);
      id = await rewoundSession(t.server.services.store, 1200);
    });
    after(() => t.close());

    it("GET …/export is the exportJsonl file byte for byte, with its revision as ETag", async () => {
      const store = t.server.services.store;
      const whole = await store.exportJsonl(OWNER, id);
      assert.ok(
        whole.trimEnd().split("\n").at(-1)?.includes("sessiontree.leaf"),
        "the file ends in a marker",
      );
      const r = await t.call("GET", `/v1/sessions/${id}/export`, { key });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get("content-type"), "application/x-ndjson");
      assert.equal(r.headers.get("etag"), `"${(await store.getSummary(OWNER, id)).revision}"`);
      assert.notEqual(unstamped(whole), whole);
      assert.equal(unstamped(r.text), unstamped(whole));
      const pieces = (await store.exportJsonlPages(OWNER, id, { pageSize: 7 })).pieces;
      assert.equal(unstamped(await collect(pieces)), unstamped(whole));
      const other = await t.key("mallory");
      const hidden = await t.call("GET", `/v1/sessions/${id}/export`, { key: other });
      assert.deepEqual([hidden.status, hidden.json.code], [404, "session_not_found"]);
    });

    it("a streamed export holds its whole-read slot until its last byte, or until it is cancelled", async () => {
      const services = t.server.services;
      const read = { services, owner: OWNER, sessionId: id };
      const first = await exportAnswer(read);
      assert.ok(first.body instanceof ReadableStream);
      await assert.rejects(
        gatedRead(services, OWNER, async () => "second"),
        (error: unknown) => error instanceof HttpError && error.status === 429,
      );
      const whole = await services.store.exportJsonl(OWNER, id);
      assert.equal(unstamped(await readAll(first.body)), unstamped(whole));
      assert.equal(await gatedRead(services, OWNER, async () => "after"), "after");
      const cancelled = await exportAnswer(read);
      await (cancelled.body as ReadableStream).cancel();
      const { leave } = enterStreamedRead(services, OWNER);
      leave();
      leave(); // a second release counts for nothing
      assert.equal(await gatedRead(services, OWNER, async () => "free"), "free");
    });

    it("an export its client does not read holds no instance slot: other users' reads go on", async () => {
      const services = t.server.services;
      const store = services.store;
      // As many exports as the instance runs reads at once, each by a user of its own: before,
      // each held a slot until its client read on, and every other user's read waited.
      const idle: Array<{ owner: string; session: string; body: ReadableStream<Uint8Array> }> = [];
      for (let i = 0; i < services.limits.maxHeavyReads; i++) {
        const owner = `idle-${i}`;
        const { id: session } = await store.createSession(owner, { cwd: "/w" });
        const message = { role: "user", content: `idle ${i}`, timestamp: 0 };
        const timestamp = new Date(0).toISOString();
        await store.appendEntries(owner, session, [
          { type: "message", id: "m0", parentId: null, timestamp, message },
        ]);
        const answer = await exportAnswer({ services, owner, sessionId: session });
        idle.push({ owner, session, body: answer.body as ReadableStream<Uint8Array> });
      }
      const waited = new Promise<string>((resolve) => setTimeout(() => resolve("still waiting"), 2000));
      assert.equal(await Promise.race([gatedRead(services, OWNER, async () => "ran"), waited]), "ran");
      for (const { owner, session, body } of idle)
        assert.equal(unstamped(await readAll(body)), unstamped(await store.exportJsonl(owner, session)));
    });

    it("answers larger than one run (tree, branch, context) parse to the same answer", async () => {
      const branch = await t.call("GET", `/v1/sessions/${id}/branch?leafId=e1199`, { key });
      assert.equal(branch.status, 200);
      assert.ok(branch.text.length > 64 * 1024, "sent in several runs");
      const stored = await t.server.services.store.readBranch(OWNER, id, "e1199");
      assert.deepEqual(branch.json.entries, stored);
      const tree = await t.call("GET", `/v1/sessions/${id}/tree`, { key });
      assert.equal(tree.json.nodes.length, 1200);
      assert.equal(tree.json.leafId, "e600");
      const context = await t.call("GET", `/v1/sessions/${id}/context`, { key });
      assert.equal(context.json.messages.length, 601);
    });

    it("labels an entry after one lookup of its target; an unknown target is entry_not_found", async () => {
      const missing = await t.call("POST", `/v1/sessions/${id}/labels`, {
        key,
        body: { targetId: "nope", label: "x" },
      });
      assert.deepEqual([missing.status, missing.json.code], [404, "entry_not_found"]);
      const labelled = await t.call("POST", `/v1/sessions/${id}/labels`, {
        key,
        body: { targetId: "e1100", label: "deep" },
      });
      assert.equal(labelled.status, 200);
      const labels = await t.call("GET", `/v1/sessions/${id}/labels`, { key });
      assert.equal(labels.json.labels.e1100, "deep");
      const added = await t.call("POST", `/v1/sessions/${id}/entries`, {
        key,
        body: { entries: [userMessage("after the label")] },
      });
      assert.equal(added.status, 200);
    });
  });
}
