import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { SessionEntry } from "../../../src/core/entry.js";
import type { BlobMaintenance } from "../../../src/store/blob/blob-maintenance.js";
import type { BlobStore } from "../../../src/store/blob/blob-store.js";
import { refsOf } from "../../../src/store/blob/payload-refs.js";
import type { SessionStore } from "../../../src/store/store.js";
import { newOwner, rejectsWith } from "../conformance/helpers.js";
import { bigToolResult, smallUser, userWithImage } from "./payload-entries.js";

export interface OffloadTarget {
  name: string;
  /** A store given `blobs` with a grace period of 0 (so a collection takes what it may at once). */
  open(): Promise<{ store: SessionStore & { blobs: BlobMaintenance | null }; blobs: BlobStore }>;
  cleanup?(): Promise<void>;
}

async function listed(blobs: BlobStore, owner: string): Promise<string[]> {
  const hashes: string[] = [];
  for await (const blob of blobs.list(owner)) hashes.push(blob.sha256);
  return hashes.sort();
}

/** Every reference the owner's stored sessions hold resolves, and every listed blob is referenced. */
async function assertNoDanglingNoOrphan(store: SessionStore, blobs: BlobStore, owner: string) {
  const referenced = new Set<string>();
  for (const summary of (await store.listSessions(owner, { state: "all", limit: 1000 })).items) {
    const { entries } = await store.loadSession(owner, summary.id, {
      includeDeleted: true,
      references: true,
    });
    for (const entry of entries) for (const ref of refsOf(entry)) referenced.add(ref.sha256);
  }
  for (const sha256 of referenced) assert.ok(await blobs.has(owner, sha256), `dangling reference ${sha256}`);
  assert.deepEqual(await listed(blobs, owner), [...referenced].sort(), "orphan blobs in the bucket");
}

function sessionOf(prefix: string): SessionEntry[] {
  const a = userWithImage(`${prefix}-img`, null);
  const b = bigToolResult(`${prefix}-out`, a.id);
  const c = smallUser(`${prefix}-small`, b.id);
  return [a, b, c];
}

export function offloadSpec(target: OffloadTarget): void {
  describe(`payloads out of line: ${target.name}`, () => {
    let store: SessionStore & { blobs: BlobMaintenance | null };
    let blobs: BlobStore;
    let maintenance: BlobMaintenance;
    before(async () => {
      ({ store, blobs } = await target.open());
      await store.init();
      assert.ok(store.blobs);
      maintenance = store.blobs;
    });
    after(async () => {
      await store.close();
      await blobs.close();
      await target.cleanup?.();
    });

    it("gives every read the entries whole, and references only when asked", async () => {
      const owner = newOwner();
      const entries = sessionOf("r");
      const { id } = await store.createSession(owner);
      await store.appendEntries(owner, id, entries);
      assert.deepEqual(await store.readBranch(owner, id), entries);
      assert.deepEqual((await store.loadSession(owner, id)).entries, entries);
      assert.deepEqual((await store.readEntries(owner, id)).entries, entries);
      assert.ok((await store.exportJsonl(owner, id)).includes(imageData(entries[0])));
      const stored = await store.readBranch(owner, id, undefined, { references: true });
      const refs = stored.flatMap(refsOf);
      assert.equal(refs.length, 2);
      assert.equal(refsOf(stored[2] as SessionEntry).length, 0, "small entries stay inline");
      assert.ok(!JSON.stringify(stored).includes(imageData(entries[0])));
      assert.deepEqual(await listed(blobs, owner), refs.map((ref) => ref.sha256).sort());
      // A retry is recognised as one (the stored form is compared with the batch's stored form).
      const retry = await store.appendEntries(owner, id, entries);
      assert.deepEqual(retry.appended, []);
      assert.equal(retry.skipped.length, 3);
    });

    it("shares blobs between a session and its imported copy, and accepts references back", async () => {
      const owner = newOwner();
      const { id } = await store.createSession(owner);
      const entries = sessionOf("f");
      await store.appendEntries(owner, id, entries);
      const before = await listed(blobs, owner);
      const copy = await store.importJsonl(owner, await store.exportJsonl(owner, id), { newId: true });
      assert.deepEqual(await listed(blobs, owner), before);
      assert.deepEqual(await store.readBranch(owner, copy.id), entries);
      // What a reader got with references can be written back by the same owner.
      const asStored = await store.readBranch(owner, id, undefined, { references: true });
      const other = await store.createSession(owner);
      await store.appendEntries(owner, other.id, asStored);
      assert.deepEqual(await store.readBranch(owner, other.id), entries);
      await assertNoDanglingNoOrphan(store, blobs, owner);
    });

    it("answers another owner's blob hash like a missing one", async () => {
      const alice = newOwner();
      const bob = newOwner();
      const { id } = await store.createSession(alice);
      await store.appendEntries(alice, id, sessionOf("i"));
      const refs = (await store.readBranch(alice, id, undefined, { references: true })).flatMap(refsOf);
      const theirs = refs[0]?.sha256 ?? "";
      await rejectsWith(blobs.get(bob, theirs), "blob_not_found");
      const bobs = await store.createSession(bob);
      const stolen = {
        ...smallUser("steal", null),
        message: {
          role: "user",
          content: [{ type: "image", mimeType: "image/png", blob: refs[0] }],
          timestamp: 1,
        },
      } as unknown as SessionEntry;
      const missing = {
        ...stolen,
        id: "missing",
        message: {
          ...(stolen as never as Img).message,
          content: [{ type: "image", mimeType: "image/png", blob: { sha256: "0".repeat(64), size: 1 } }],
        },
      } as unknown as SessionEntry;
      const a = await rejectsWith(store.appendEntries(bob, bobs.id, [stolen]), "invalid_entry");
      const b = await rejectsWith(store.appendEntries(bob, bobs.id, [missing]), "invalid_entry");
      assert.equal(a.message.replace(theirs, "#"), b.message.replace("0".repeat(64), "#"));
      assert.deepEqual(await listed(blobs, bob), []);
    });

    it("purge and retention leave no orphan and no dangling reference; soft-deleted sessions keep theirs", async () => {
      const owner = newOwner();
      const one = await store.createSession(owner);
      await store.appendEntries(owner, one.id, sessionOf("p"));
      const two = await store.importJsonl(owner, await store.exportJsonl(owner, one.id), { newId: true });
      const three = await store.createSession(owner);
      await store.appendEntries(owner, three.id, [userWithImage("p3", null)]);
      await store.purgeSession(owner, one.id);
      assert.equal((await listed(blobs, owner)).length, 3, "the copy still references the shared blobs");
      await store.deleteSession(owner, two.id);
      await maintenance.collect();
      assert.equal((await listed(blobs, owner)).length, 3, "a soft-deleted session keeps its blobs");
      await assertNoDanglingNoOrphan(store, blobs, owner);
      await store.purgeDeletedBefore(new Date(Date.now() + 60_000));
      await assertNoDanglingNoOrphan(store, blobs, owner);
      assert.equal((await listed(blobs, owner)).length, 1);
      await store.purgeSession(owner, three.id);
      assert.deepEqual(await listed(blobs, owner), []);
    });

    it("archives cold sessions as one gzip pi JSONL object and restores them on any read", async () => {
      const owner = newOwner();
      const { id } = await store.createSession(owner);
      const entries = sessionOf("a");
      await store.appendEntries(owner, id, entries);
      const exported = await store.exportJsonl(owner, id);
      const report = await maintenance.archive(new Date(Date.now() + 60_000));
      assert.ok(report.archived.some((s) => s.owner === owner && s.sessionId === id));
      const summary = await store.getSummary(owner, id);
      assert.ok(summary.archivedAt, "the summary says the session is archived");
      assert.equal(summary.entryCount, 3);
      await maintenance.collect({ owner });
      assert.equal((await listed(blobs, owner)).length, 1, "only the archive object is left");
      assert.deepEqual(await store.readBranch(owner, id), entries);
      assert.equal((await store.getSummary(owner, id)).archivedAt, undefined);
      assert.equal(await store.exportJsonl(owner, id), exported);
      await maintenance.collect({ owner });
      await assertNoDanglingNoOrphan(store, blobs, owner);
      assert.equal((await listed(blobs, owner)).length, 2);
      // A write restores too; archive then purge leaves nothing.
      await maintenance.archive(new Date(Date.now() + 60_000));
      await store.appendEntries(owner, id, [smallUser("after", entries[2]?.id ?? null)]);
      assert.equal((await store.readBranch(owner, id)).length, 4);
      await maintenance.archive(new Date(Date.now() + 60_000));
      await store.deleteSession(owner, id);
      await store.purgeSession(owner, id);
      assert.deepEqual(await listed(blobs, owner), []);
    });

    it("collects an object no claim knows (an upload whose append never committed)", async () => {
      const owner = newOwner();
      await blobs.put(owner, new TextEncoder().encode("left behind"));
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const report = await maintenance.collect({ owner });
      assert.equal(report.orphans, 1);
      assert.deepEqual(await listed(blobs, owner), []);
    });
  });
}

function imageData(entry: SessionEntry | undefined): string {
  return (entry as never as Img).message.content[1]?.data ?? "missing";
}

interface Img {
  message: { content: Array<{ data: string }> };
}
